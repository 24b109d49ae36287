#include "serve/text_translation.h"

#include <algorithm>

#include "decode/html_translation.h"
#include "decode/line_alignment.h"
#include "decode/placeholder_restore.h"
#include "serve/http_error.h"
#include "text/utf8.h"
#include "util/error.h"

namespace nmt::serve {

decode::TranslatorOptions serving_options(decode::TranslatorOptions options, const std::string& source_language,
                                          const std::string& target_language) {
  options.split_sentences = true;
  options.source_language = source_language;
  options.target_language = target_language;
  options.target_prefix = false;  // a tab in a request's text is text; prefixes come as their own field
  return options;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (end == std::string::npos) return lines;
    start = end + 1;
  }
}

void RequestLimits::check(const std::vector<std::string>& texts, bool count_lines) const {
  int64_t chars = 0, lines = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (text::find_invalid_utf8(texts[i]) != texts[i].size()) {
      throw HttpError(400, "Text " + std::to_string(i) + " of the request is not valid UTF-8.");
    }
    chars += static_cast<int64_t>(text::count_code_points(texts[i]));
    lines += 1 + static_cast<int64_t>(std::count(texts[i].begin(), texts[i].end(), '\n'));
  }
  if (chars > max_chars) {
    // LibreTranslate's words (its limit is per text, ours per request).
    throw HttpError(400, "Invalid request: request (" + std::to_string(chars) + ") exceeds text limit (" +
                             std::to_string(max_chars) + ")");
  }
  if (count_lines && lines > max_sentences) {
    throw HttpError(400, "The request holds " + std::to_string(lines) +
                             " sentences (lines); this server takes at most " + std::to_string(max_sentences) +
                             " per request.");
  }
}

namespace {

// Per byte offset of `text` (and its end), the UTF-16 code units before it.
std::vector<size_t> utf16_offsets(const std::string& text) {
  std::vector<size_t> out(text.size() + 1, 0);
  size_t units = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    out[i] = units;
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;  // a 4-byte sequence is a surrogate pair
  }
  out[text.size()] = units;
  return out;
}

// The whitespace-delimited word of `text` around byte `at`.
std::pair<size_t, size_t> word_around(const std::string& text, size_t at) {
  const char* space = " \t\r\n";
  const size_t before = at == 0 ? std::string::npos : text.find_last_of(space, at - 1);
  const size_t begin = before == std::string::npos ? 0 : before + 1;
  const size_t end = std::min(text.find_first_of(space, at), text.size());
  return {begin, std::max(begin, end)};
}

// Links of one line: `words` (decode::aligned_words, source positions in
// `source` from `source_at`) found in order in `output` (from `output_at`).
void link_line(const std::vector<text::AlignedWord>& words, const std::string& source, size_t source_at,
               const std::string& output, size_t output_at, std::vector<std::pair<size_t, size_t>>& targets,
               std::vector<std::pair<size_t, size_t>>& sources) {
  size_t cursor = output_at;
  for (const auto& w : words) {
    const size_t at = output.find(w.text, cursor);
    if (at == std::string::npos) continue;  // a word the detokenizer changed: left without a link
    targets.emplace_back(at, at + w.text.size());
    sources.push_back(word_around(source, source_at + w.source));
    cursor = at + w.text.size();
  }
}

// `prefixes`: empty, or target ids per line. Lines' placeholders are put
// back, and with `align` their words aligned (positions in the line as
// given), on the batcher's worker: both run the model.
std::vector<decode::LineTranslation> translate_lines(Batcher& batcher, const std::vector<std::string>& lines,
                                                     bool align, const DecodingRequest& decoding,
                                                     const std::vector<std::vector<int64_t>>& prefixes,
                                                     std::vector<std::vector<text::AlignedWord>>& words) {
  auto& translator = batcher.translator();
  const auto& placeholders = decoding.placeholders ? *decoding.placeholders : translator.options().placeholders;
  std::vector<decode::LinePlan> plans;
  for (size_t l = 0; l < lines.size(); ++l) {
    plans.push_back(translator.plan(lines[l], translator.options().split_sentences, placeholders, decoding.glossary));
    if (!prefixes.empty() && !plans.back().pieces.empty()) plans.back().target_prefix = prefixes[l];
  }
  auto hypotheses = batcher.translate_checked(plans, decoding.search ? *decoding.search : translator.options().search);
  std::vector<decode::LineTranslation> out;
  for (size_t l = 0; l < lines.size(); ++l) out.push_back(translator.rebuild(std::move(plans[l]), std::move(hypotheses[l])));
  const bool restore = std::any_of(out.begin(), out.end(), decode::has_placeholders);
  if (!align && !restore) return out;
  if (align) words.resize(lines.size());
  batcher.run_on_worker([&] {
    const int64_t layer = decode::default_alignment_layer(translator);
    for (size_t l = 0; l < lines.size(); ++l) {
      auto& line = out[l];
      if (align) {
        const auto attention = decode::piece_attention(translator, line.plan, line.hypotheses, layer);
        words[l] = decode::aligned_words(translator, line.plan.text, line.plan, line.hypotheses, attention);
        for (auto& w : words[l]) w.source = line.plan.masked.original_position(w.source);
      }
      decode::restore_placeholders(translator, line, layer);
    }
  });
  return out;
}

}  // namespace

std::vector<TextTranslation> translate_texts(Batcher& batcher, const std::vector<std::string>& texts, bool align,
                                             const DecodingRequest& decoding) {
  std::vector<std::string> lines;
  std::vector<std::vector<int64_t>> prefixes;  // per line: a text's prefix goes to its first line
  std::vector<size_t> first_line;  // per text, into `lines`
  std::vector<size_t> line_at;     // per line, its first byte in its text
  for (const auto& text : texts) {
    first_line.push_back(lines.size());
    size_t at = 0;
    for (auto& line : split_lines(text)) {
      if (!decoding.target_prefixes.empty()) {
        const std::string& prefix = decoding.target_prefixes[first_line.size() - 1];
        prefixes.emplace_back();
        if (lines.size() == first_line.back() && !prefix.empty()) {
          for (int id : batcher.translator().vocabs().tgt->encode(prefix)) prefixes.back().push_back(id);
          // Refused here: in a round it would fail every request it shares the round with.
          try {
            batcher.translator().check_target_prefix(prefixes.back(), prefix);
          } catch (const DataError& e) {
            throw HttpError(400, e.what());
          }
        }
      }
      line_at.push_back(at);
      at += line.size() + 1 + (at + line.size() < text.size() && text[at + line.size()] == '\r' ? 1 : 0);
      lines.push_back(std::move(line));
    }
  }
  first_line.push_back(lines.size());
  std::vector<std::vector<text::AlignedWord>> words;
  const auto translated = translate_lines(batcher, lines, align, decoding, prefixes, words);
  std::vector<TextTranslation> out(texts.size());
  for (size_t t = 0; t < texts.size(); ++t) {
    size_t n_hyps = 1;
    for (size_t l = first_line[t]; l < first_line[t + 1]; ++l) n_hyps = std::max(n_hyps, translated[l].texts.size());
    for (size_t k = 0; k < n_hyps; ++k) {
      std::string joined;
      double score = 0;
      for (size_t l = first_line[t]; l < first_line[t + 1]; ++l) {
        const auto& line = translated[l];
        if (l > first_line[t]) joined += '\n';
        if (line.texts.empty()) continue;  // blank line
        const size_t pick = std::min(k, line.texts.size() - 1);
        joined += line.texts[pick];
        score += line.scores[pick];
      }
      out[t].hypotheses.push_back(std::move(joined));
      out[t].scores.push_back(score);
    }
    for (size_t l = first_line[t]; l < first_line[t + 1]; ++l) {
      out[t].coverage.add(translated[l].plan, batcher.translator().options().coverage);
      for (const auto& term : translated[l].unmet_terms) {
        auto& unmet = out[t].unmet_terms;
        if (std::find(unmet.begin(), unmet.end(), term) == unmet.end()) unmet.push_back(term);
      }
    }
    if (align) {
      std::vector<std::pair<size_t, size_t>> targets, sources;
      size_t output_at = 0;
      for (size_t l = first_line[t]; l < first_line[t + 1]; ++l) {
        link_line(words[l], texts[t], line_at[l], out[t].hypotheses.front(), output_at, targets, sources);
        output_at += (translated[l].texts.empty() ? 0 : translated[l].texts.front().size()) + 1;
      }
      const auto source16 = utf16_offsets(texts[t]), target16 = utf16_offsets(out[t].hypotheses.front());
      for (size_t k = 0; k < targets.size(); ++k) {
        out[t].alignment.push_back({target16[targets[k].first], target16[targets[k].second], source16[sources[k].first],
                                    source16[sources[k].second]});
      }
    }
  }
  return out;
}

std::vector<TextTranslation> translate_html_texts(Batcher& batcher, const std::vector<std::string>& texts,
                                                  const text::PlaceholderOptions& placeholders,
                                                  std::shared_ptr<const memory::Glossary> glossary) {
  decode::HtmlTranslator html(
      batcher.translator(), [&batcher](const std::vector<decode::LinePlan>& plans) { return batcher.translate_plans(plans); },
      [&batcher](const std::function<void()>& call) { batcher.run_on_worker(call); });
  html.set_placeholders(placeholders);
  if (glossary) html.set_glossary(std::move(glossary));
  std::vector<TextTranslation> out;
  for (auto& t : html.translate(texts)) out.push_back({{std::move(t.html)}, {0.0}, {}, {}, std::move(t.unmet_terms)});
  return out;
}

}  // namespace nmt::serve
