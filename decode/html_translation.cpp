#include "decode/html_translation.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include <torch/torch.h>

#include "decode/line_alignment.h"
#include "decode/placeholder_restore.h"
#include "text/html_document.h"
#include "text/utf8.h"

namespace nmt::decode {
namespace {

// A run's units: its sentences (with the whitespace after each), where no
// inline element spans two; together they cover the run's whole text.
std::vector<text::Span> units_of(const text::HtmlRun& run, const text::SentenceSplitter& splitter) {
  const auto sentences = splitter.split(run.text);
  std::vector<size_t> starts{0};
  for (size_t k = 1; k < sentences.size(); ++k) {
    const size_t s = sentences[k].begin;
    const bool spanned = std::any_of(run.elements.begin(), run.elements.end(),
                                     [s](const text::InlineElement& e) { return e.begin < s && s < e.end; });
    if (!spanned) starts.push_back(s);
  }
  std::vector<text::Span> units;
  for (size_t k = 0; k < starts.size(); ++k) {
    units.push_back({starts[k], k + 1 < starts.size() ? starts[k + 1] : run.text.size()});
  }
  return units;
}

// Per element of the run, the unit it goes with: the one its text starts in;
// an empty element, its parent's.
std::vector<size_t> unit_of_elements(const text::HtmlRun& run, const std::vector<text::Span>& units) {
  std::vector<size_t> unit(run.elements.size(), units.size() - 1);
  for (size_t e = 0; e < run.elements.size(); ++e) {
    const auto& el = run.elements[e];
    if (el.begin == el.end && el.parent >= 0) {
      unit[e] = unit[static_cast<size_t>(el.parent)];
      continue;
    }
    for (size_t u = 0; u < units.size(); ++u) {
      if (units[u].begin <= el.begin && el.begin < units[u].end) unit[e] = u;
    }
  }
  return unit;
}

// Whether text has a letter or a digit (any non-ASCII character counts).
bool holds_words(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
  });
}

// The whitespace-separated words of `text` aligned to themselves.
std::vector<text::AlignedWord> source_words(const std::string& text, size_t offset) {
  std::vector<text::AlignedWord> words;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find(' ', at), text.size());
    const text::Span word = text::trim_space(text, {at, end});
    if (!word.empty()) words.push_back({std::string(word.of(text)), offset + word.begin});
    at = end + 1;
  }
  return words;
}

}  // namespace

struct HtmlTranslator::Job {
  size_t doc = 0, run = 0;
  bool whole_run = true;          // the run's text as a paragraph (no inline elements), or one unit of it
  text::Span unit, inner;         // the unit in the run's text, with and without its whitespace
  std::vector<size_t> elements;   // the run's elements in the unit
  size_t plan = 0;
  std::vector<torch::Tensor> attention;  // per piece of an aligned unit
  std::optional<std::string> restored;   // a whole run's translation with its placeholders put back
};

HtmlTranslator::HtmlTranslator(Translator& translator, PlanTranslator plans, ModelCall model_call,
                               std::optional<int64_t> alignment_layer)
    : translator_(translator),
      plans_(std::move(plans)),
      model_call_(std::move(model_call)),
      alignment_layer_(alignment_layer.value_or(default_alignment_layer(translator))),
      splitter_(translator.options().source_language) {
  set_placeholders(translator.options().placeholders);
  if (!plans_) plans_ = [this](const std::vector<LinePlan>& plans) { return translator_.translate_plans(plans); };
  if (!model_call_) model_call_ = [](const std::function<void()>& f) { f(); };
}

void HtmlTranslator::set_placeholders(text::PlaceholderOptions placeholders) {
  placeholders_ = std::move(placeholders);
  placeholders_.tags = false;  // a tag in a run's text was written as &lt;...&gt;: text, not markup
}

std::vector<HtmlTranslation> HtmlTranslator::translate(const std::vector<std::string>& documents) {
  std::vector<HtmlTranslation> out(documents.size());
  std::vector<std::unique_ptr<text::HtmlDocument>> docs(documents.size());
  std::vector<LinePlan> plans;
  std::vector<Job> jobs;
  for (size_t d = 0; d < documents.size(); ++d) {
    if (text::find_invalid_utf8(documents[d]) != documents[d].size()) {
      out[d].html = documents[d];
      out[d].invalid_utf8 = true;
      continue;
    }
    docs[d] = std::make_unique<text::HtmlDocument>(documents[d]);
    plan_document(d, *docs[d], plans, jobs);
  }
  const auto hypotheses = translator_.translate_checked(plans, plans_, model_call_);
  attend(plans, hypotheses, jobs);
  std::vector<std::vector<std::string>> outputs(documents.size());
  for (size_t d = 0; d < documents.size(); ++d) {
    if (docs[d]) outputs[d].resize(docs[d]->runs().size());
  }
  for (int pass = 0; pass < 2; ++pass) {  // attributes and plain runs first: tags inside runs carry attributes
    for (const Job& job : jobs) {
      if ((pass == 0) != job.whole_run) continue;
      outputs[job.doc][job.run] += job_output(job, *docs[job.doc], plans[job.plan], hypotheses[job.plan],
                                              outputs[job.doc]);
    }
  }
  for (size_t d = 0; d < documents.size(); ++d) {
    if (!docs[d]) continue;
    out[d].html = docs[d]->render(outputs[d]);
  }
  for (const Job& job : jobs) {
    out[job.doc].sentences += plans[job.plan].sentences;
    out[job.doc].long_sentences += plans[job.plan].long_sentences;
    for (auto& term : unmet_terms(plans[job.plan], hypotheses[job.plan])) {
      auto& unmet = out[job.doc].unmet_terms;
      if (std::find(unmet.begin(), unmet.end(), term) == unmet.end()) unmet.push_back(std::move(term));
    }
  }
  return out;
}

void HtmlTranslator::plan_document(size_t d, const text::HtmlDocument& doc, std::vector<LinePlan>& plans,
                                   std::vector<Job>& jobs) const {
  for (size_t r = 0; r < doc.runs().size(); ++r) {
    const text::HtmlRun& run = doc.runs()[r];
    if (run.attribute || run.elements.empty()) {
      Job job;
      job.doc = d, job.run = r, job.plan = plans.size();
      job.unit = job.inner = {0, run.text.size()};
      plans.push_back(translator_.plan(run.text, /*split_sentences=*/true, placeholders_, glossary_));
      jobs.push_back(std::move(job));
      continue;
    }
    const auto units = units_of(run, splitter_);
    const auto unit_of = unit_of_elements(run, units);
    for (size_t u = 0; u < units.size(); ++u) {
      Job job;
      job.doc = d, job.run = r, job.whole_run = false, job.plan = plans.size();
      job.unit = units[u];
      job.inner = text::trim_space(run.text, units[u]);
      for (size_t e = 0; e < run.elements.size(); ++e) {
        if (unit_of[e] == u) job.elements.push_back(e);
      }
      plans.push_back(
          translator_.plan(std::string(job.inner.of(run.text)), /*split_sentences=*/false, placeholders_, glossary_));
      jobs.push_back(std::move(job));
    }
  }
}

void HtmlTranslator::attend(const std::vector<LinePlan>& plans,
                            const std::vector<std::vector<std::vector<Hypothesis>>>& hypotheses,
                            std::vector<Job>& jobs) const {
  const int64_t layer = alignment_layer_;
  model_call_([&] {
    for (Job& job : jobs) {
      const LinePlan& plan = plans[job.plan];
      if (job.elements.empty() && !plan.masked.atoms.empty()) {
        auto t = translator_.rebuild(plan, hypotheses[job.plan]);
        restore_placeholders(translator_, t, layer);
        job.restored = t.texts.front();
      }
      if (job.elements.empty()) continue;
      job.attention = piece_attention(translator_, plan, hypotheses[job.plan], layer);
    }
  });
}

std::string HtmlTranslator::job_output(const Job& job, const text::HtmlDocument& doc, const LinePlan& plan,
                                       const std::vector<std::vector<Hypothesis>>& hypotheses,
                                       const std::vector<std::string>& outputs) const {
  const text::HtmlRun& run = doc.runs()[job.run];
  const std::string lead(text::Span{job.unit.begin, job.inner.begin}.of(run.text));
  const std::string trail(text::Span{job.inner.end, job.unit.end}.of(run.text));
  const std::string inner(job.inner.of(run.text));
  if (job.restored) {
    return run.attribute ? *job.restored
                         : text::escape_html_text(lead) + text::escape_html_text(*job.restored) +
                               text::escape_html_text(trail);
  }
  if (job.elements.empty()) {
    const auto t = translator_.rebuild(plan, hypotheses);
    if (t.texts.empty()) {  // nothing the model translates: the source as it was
      if (run.attribute) return run.text;
      if (job.whole_run) return doc.source().substr(run.source.begin, run.source.size());
      return text::escape_html_text(job.unit.of(run.text));
    }
    if (run.attribute) return t.texts.front();
    return text::escape_html_text(lead) + text::escape_html_text(t.texts.front()) + text::escape_html_text(trail);
  }
  auto words = aligned_words(translator_, plan.text, plan, hypotheses, job.attention, job.inner.begin);
  const bool masked = !plan.masked.atoms.empty() && !words.empty();
  // Positions in the text the model saw (without the placeholders).
  const auto seen = [&](size_t at) {
    return masked ? job.inner.begin + plan.masked.masked_position(std::max(at, job.inner.begin) - job.inner.begin) : at;
  };
  words = with_kept_pieces(std::move(words), job, doc, plan, seen);
  std::vector<text::MarkupElement> elements;
  std::vector<int> local(run.elements.size(), -1);
  for (size_t e : job.elements) {
    const text::InlineElement& el = run.elements[e];
    if (el.atom) continue;  // a word of its own (with_kept_pieces)
    text::MarkupElement m;
    m.begin = seen(el.begin);
    m.end = seen(el.end);
    m.parent = el.parent >= 0 ? local[static_cast<size_t>(el.parent)] : -1;
    m.open = doc.with_attributes(el.open, outputs);
    // No end tag where the source had none: one written out would change how
    // the parser reads what follows (an unclosed <b> is reopened in the next paragraph).
    m.close = el.close.empty() ? std::string() : doc.source().substr(el.close.begin, el.close.size());
    m.holds_words = holds_words(text::Span{el.begin, el.end}.of(run.text));
    local[e] = static_cast<int>(elements.size());
    elements.push_back(std::move(m));
  }
  return text::escape_html_text(lead) + text::transfer_markup(words, elements) + text::escape_html_text(trail);
}

std::vector<text::AlignedWord> HtmlTranslator::with_kept_pieces(std::vector<text::AlignedWord> words, const Job& job,
                                                                const text::HtmlDocument& doc, const LinePlan& plan,
                                                                const std::function<size_t(size_t)>& seen) const {
  const text::HtmlRun& run = doc.runs()[job.run];
  const std::string inner(job.inner.of(run.text));
  text::MaskedText kept = plan.masked;  // the placeholders taken out, and the unit's elements kept as they are
  kept.text = plan.text;
  for (size_t e : job.elements) {
    const text::InlineElement& el = run.elements[e];
    if (!el.atom) continue;
    text::MaskedAtom a;
    a.literal = doc.source().substr(el.open.begin, el.open.size());
    a.verbatim = true;
    a.position = std::min(seen(el.begin) - std::min(seen(el.begin), job.inner.begin), kept.text.size());
    a.space_before = el.begin == 0 || std::isspace(static_cast<unsigned char>(run.text[el.begin - 1]));
    a.space_after = el.begin >= run.text.size() || std::isspace(static_cast<unsigned char>(run.text[el.begin]));
    a.original = {el.begin, el.begin};
    kept.atoms.push_back(std::move(a));
  }
  std::stable_sort(kept.atoms.begin(), kept.atoms.end(),
                   [](const text::MaskedAtom& x, const text::MaskedAtom& y) { return x.position < y.position; });
  if (!words.empty()) return kept.atoms.empty() ? words : text::place_atom_words(std::move(words), kept, job.inner.begin);
  // Nothing translated: the source's words (or what was remembered for them), the kept pieces where they stood.
  words = source_words(plan.masked.atoms.empty() ? inner : plan.masked.with_literals(), job.inner.begin);
  for (const auto& a : kept.atoms) {
    if (!a.verbatim) continue;
    const auto at = std::find_if(words.begin(), words.end(), [&](const text::AlignedWord& w) { return w.source >= a.original.begin; });
    words.insert(at, text::AlignedWord{a.literal, a.original.begin, true});
  }
  return words;
}

}  // namespace nmt::decode
