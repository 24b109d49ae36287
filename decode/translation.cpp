#include "decode/translation.h"

#include <algorithm>
#include <numeric>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "decode/beam_search.h"
#include "decode/checked_translation.h"
#include "decode/eval_mode.h"
#include "decode/model_scorer.h"
#include "decode/parallel_batches.h"
#include "decode/placeholder_restore.h"
#include "decode/sampling.h"
#include "decode/unknown_copies.h"
#include "util/error.h"

namespace nmt::decode {
namespace {

const vocab::Vocabularies& checked(const vocab::Vocabularies& v) {
  if (!v.src || !v.tgt) throw DataError("The translator needs both a source and a target vocabulary.");
  return v;
}

SearchIds target_ids_of(const vocab::Vocabularies& v) {
  return SearchIds{v.tgt->bos_id(), v.tgt->eos_id(), v.tgt->pad_id()};
}

TranslatorOptions without_tags(TranslatorOptions options) {
  options.source_tag.clear();
  options.target_tag.clear();
  return options;
}

// The id of `tag` in `vocab` (-1 for no tag); a DataError when it has none.
int64_t tag_id(const vocab::Vocab& vocab, const std::string& tag, const std::string& what, const std::string& side) {
  if (tag.empty()) return -1;
  const int64_t id = vocab.piece_id(tag);
  if (id < 0) {
    throw DataError(what + " \"" + tag + "\" is not a piece of the " + side + " vocabulary " + vocab.path() + ".");
  }
  return id;
}

// Drops position 1 (the tag's) of per-source-position values, adding it to
// position 0 (sos's): [sos, tag, ids...] -> [sos, ids...].
void fold_tag(std::vector<float>& coverage) {
  if (coverage.size() < 2) return;
  coverage[0] += coverage[1];
  coverage.erase(coverage.begin() + 1);
}

// A model that reads its sources without sos or eos (model.source_bos,
// model.source_eos) still reports per-source-position values in the layout
// [sos, ids..., eos, padding...] that alignments and coverage read: zeros
// where it has no sos or eos. `length` counts the ids.
void add_missing_ends(std::vector<float>& per_position, const ModelConfig& c, size_t length) {
  if (per_position.empty()) return;
  if (!c.source_bos) per_position.insert(per_position.begin(), 0.0f);
  if (!c.source_eos) {
    const auto at = static_cast<std::ptrdiff_t>(std::min(length + 1, per_position.size()));
    per_position.insert(per_position.begin() + at, 0.0f);
  }
}

}  // namespace

void TranslatorOptions::validate() const {
  search.validate();
  coverage.validate();
  if (max_piece_tokens < 0) {
    throw UsageError("--max-piece-tokens must be at least 1, or 0 for the model's whole length (got " +
                     std::to_string(max_piece_tokens) + ").");
  }
  if (batch_size < 1) throw UsageError("--batch-size must be at least 1 (got " + std::to_string(batch_size) + ").");
  if (parallel_batches < 1) {
    throw UsageError("--parallel-batches must be at least 1 (got " + std::to_string(parallel_batches) + ").");
  }
  if (alignment_heads < 0) {
    throw UsageError("The alignment's heads must not be negative (got " + std::to_string(alignment_heads) + ").");
  }
}

Translator::Translator(model::Transformer model, vocab::Vocabularies vocabs, TranslatorOptions options)
    : Translator(model, target_ids_of(checked(vocabs)), checked(vocabs).src->bos_id(), checked(vocabs).src->eos_id(),
                 without_tags(options)) {
  vocabs_ = std::move(vocabs);
  options_.source_tag = options.source_tag;
  options_.target_tag = options.target_tag;
  check_alignment();
  source_tag_ = tag_id(*vocabs_.src, options_.source_tag, "The language tag", "source");
  target_tag_ = tag_id(*vocabs_.tgt, options_.target_tag, "The target tag", "target");
  planner_.emplace(vocabs_.src, vocabs_.tgt, PieceLimits{max_source_tokens(), options_.max_piece_tokens},
                   options_.split_sentences, PlannerLanguages{options_.source_language, options_.target_language},
                   options_.shapes);
  if (options_.coverage.check) checker_.emplace(vocabs_.src, options_.coverage);
}

Translator::Translator(model::Transformer model, SearchIds target_ids, int64_t source_bos, int64_t source_eos,
                       TranslatorOptions options)
    : model_(std::move(model)),
      options_(options),
      ids_(target_ids),
      source_bos_(source_bos),
      source_eos_(source_eos),
      device_(model::device_of(*model_)) {
  options_.validate();
  if (!options_.source_tag.empty() || !options_.target_tag.empty()) {
    throw UsageError("A translator without vocabularies cannot put the tag \"" + options_.source_tag +
                     options_.target_tag + "\" before its sentences.");
  }
}

void Translator::check_alignment() const {
  const auto& c = model_->config();
  const int64_t layer = options_.alignment_layer.value_or(-1);
  if (layer < -c.n_layers || layer >= c.n_layers || options_.alignment_heads > c.n_head) {
    throw DataError("The alignment that replaces unknown tokens (decoding.json's alignment_layer " +
                    std::to_string(layer) + ", alignment_heads " + std::to_string(options_.alignment_heads) +
                    ") does not fit the model's " + std::to_string(c.n_layers) + " decoder layers of " +
                    std::to_string(c.n_head) + " heads.");
  }
}

int64_t Translator::max_source_tokens() const {
  const auto& c = model_->config();
  return c.max_len - c.source_ends() - (source_tag_ >= 0 ? 1 : 0);
}

int64_t Translator::max_piece_tokens() const { return planner_ ? planner_->max_piece_tokens() : max_source_tokens(); }

int64_t Translator::coverage_layer() const {
  const int64_t layers = model_->config().n_layers;
  return layers >= 2 ? layers - 2 : layers - 1;
}

LinePlan Translator::plan(const std::string& line) const { return plan(line, options_.split_sentences); }

LinePlan Translator::plan(const std::string& line, bool split_sentences) const {
  return plan(line, split_sentences, options_.placeholders);
}

// Remembered sentences, and placeholders outside them, taken out of `source`.
text::MaskedText Translator::protect(const std::string& source, bool split_sentences,
                                     const text::PlaceholderOptions& placeholders) const {
  std::vector<std::pair<text::Span, std::string>> remembered;
  if (memory_) {
    for (const text::Span& sentence : planner_->sentences(source, split_sentences)) {
      if (auto text = memory_(std::string(sentence.of(source)))) remembered.emplace_back(sentence, std::move(*text));
    }
  }
  return text::mask_remembered(source, std::move(remembered), text::find_placeholders(source, placeholders));
}

LinePlan Translator::plan(const std::string& line, bool split_sentences, const text::PlaceholderOptions& placeholders,
                          const std::shared_ptr<const memory::Glossary>& glossary) const {
  if (!planner_) throw DataError("This translator was built without vocabularies; it cannot translate text.");
  const size_t tab = options_.target_prefix ? line.find('\t') : std::string::npos;
  const std::string source = line.substr(0, tab);
  auto masked = protect(source, split_sentences, placeholders);
  LinePlan p = planner_->plan(masked.text, split_sentences, glossary ? glossary : glossary_);
  if (!masked.atoms.empty()) p.masked = std::move(masked);
  if (tab == std::string::npos || p.pieces.empty()) return p;  // nothing to translate: the prefix alone is not a translation
  const std::string prefix = line.substr(tab + 1);
  for (int id : vocabs_.tgt->encode(prefix)) p.target_prefix.push_back(id);
  check_target_prefix(p.target_prefix, prefix);
  return p;
}

LineTranslation Translator::rebuild(LinePlan plan, std::vector<std::vector<Hypothesis>> hypotheses) const {
  return rebuild_line(std::move(plan), std::move(hypotheses), *vocabs_.tgt, planner_->target_shape());
}

std::vector<LineTranslation> Translator::translate(const std::vector<std::string>& lines) {
  std::vector<LinePlan> plans;
  plans.reserve(lines.size());
  for (const auto& line : lines) plans.push_back(plan(line));
  auto hyps = translate_checked(plans);
  std::vector<LineTranslation> out;
  out.reserve(lines.size());
  for (size_t k = 0; k < plans.size(); ++k) out.push_back(rebuild(std::move(plans[k]), std::move(hyps[k])));
  restore_placeholders(*this, out);
  return out;
}

std::vector<std::vector<std::vector<Hypothesis>>> Translator::translate_plans(const std::vector<LinePlan>& plans) {
  std::vector<std::vector<int64_t>> sources, prefixes;  // every piece of every line: one set of batches
  std::vector<TermConstraints> terms;
  bool any_prefix = false, any_terms = false;
  for (const auto& p : plans) {
    sources.insert(sources.end(), p.pieces.begin(), p.pieces.end());
    for (size_t k = 0; k < p.pieces.size(); ++k) {
      prefixes.push_back(k == 0 ? p.target_prefix : std::vector<int64_t>{});
      terms.push_back(p.sources[k].terms);
      any_terms = any_terms || !terms.back().empty();
    }
    any_prefix = any_prefix || !p.target_prefix.empty();
  }
  if (!any_terms) terms.clear();
  auto flat = translate_ids(sources, any_prefix ? prefixes : std::vector<std::vector<int64_t>>{}, options_.search, terms);
  std::vector<std::vector<std::vector<Hypothesis>>> out(plans.size());
  auto next = std::make_move_iterator(flat.begin());
  for (size_t k = 0; k < plans.size(); ++k) {
    out[k].assign(next, next + static_cast<std::ptrdiff_t>(plans[k].pieces.size()));
    next += static_cast<std::ptrdiff_t>(plans[k].pieces.size());
  }
  return out;
}

std::vector<std::vector<std::vector<Hypothesis>>> Translator::translate_checked(std::vector<LinePlan>& plans,
                                                                                const PlanTranslator& translate,
                                                                                const ModelCall& model_call) {
  const PlanTranslator own = [this](const std::vector<LinePlan>& p) { return translate_plans(p); };
  const PlanTranslator& run = translate ? translate : own;
  auto hypotheses = checker_ && planner_ ? decode::translate_checked(plans, run, *planner_, *checker_) : run(plans);
  if (has_unknowns(*this, hypotheses)) {
    const auto copy = [&] { copy_unknowns(*this, plans, hypotheses); };
    model_call ? model_call(copy) : copy();
  }
  return hypotheses;
}

void Translator::check_target_prefix(const std::vector<int64_t>& ids, const std::string& text) const {
  check_prefix_length(ids, "The target prefix \"" + text.substr(0, 40) + (text.size() > 40 ? "..." : "") + "\"");
}

void Translator::check_prefix_length(const std::vector<int64_t>& ids, const std::string& which) const {
  // The prefix, then at least eos: within the model's max_len positions,
  // the target tag's too.
  const int64_t most = model_->config().max_len - 1 - (target_tag_ >= 0 ? 1 : 0);
  if (static_cast<int64_t>(ids.size()) <= most) return;
  throw DataError(which + " has " + std::to_string(ids.size()) + " tokens; the model writes at most " +
                  std::to_string(most) + " before its end.");
}

void Translator::check_lengths(const std::vector<std::vector<int64_t>>& sources,
                               const std::vector<std::vector<int64_t>>& target_prefixes) const {
  if (!target_prefixes.empty() && target_prefixes.size() != sources.size()) {
    throw std::invalid_argument(std::to_string(sources.size()) + " sources were given " +
                                std::to_string(target_prefixes.size()) + " target prefixes.");
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (static_cast<int64_t>(sources[i].size()) > max_source_tokens()) {
      throw DataError("Source " + std::to_string(i) + " has " + std::to_string(sources[i].size()) +
                      " tokens; the model takes at most " + std::to_string(max_source_tokens()) + ".");
    }
    if (!target_prefixes.empty()) {
      check_prefix_length(target_prefixes[i], "The target prefix of source " + std::to_string(i));
    }
  }
}

std::vector<std::vector<Hypothesis>> Translator::translate_ids(const std::vector<std::vector<int64_t>>& sources) {
  return translate_ids(sources, {}, options_.search);
}

std::vector<std::vector<Hypothesis>> Translator::translate_ids(const std::vector<std::vector<int64_t>>& sources,
                                                               const std::vector<std::vector<int64_t>>& target_prefixes,
                                                               const SearchOptions& search,
                                                               const std::vector<TermConstraints>& terms) {
  search.validate();
  check_lengths(sources, target_prefixes);
  const auto constrained = [&](size_t i) { return !terms.empty() && !terms[i].empty(); };
  if (!terms.empty() && terms.size() != sources.size()) {
    throw std::invalid_argument(std::to_string(sources.size()) + " sources were given " +
                                std::to_string(terms.size()) + " lists of glossary terms.");
  }
  static const std::vector<int64_t> no_prefix;
  // Longest first: similar lengths share a batch (little padding), and the
  // largest batch comes first, so running out of memory shows at once.
  // Sources with terms to meet come last, in batches of their own.
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (constrained(a) != constrained(b)) return constrained(b);
    return sources[a].size() > sources[b].size();
  });
  const auto free = static_cast<size_t>(std::count_if(order.begin(), order.end(), [&](size_t i) { return !constrained(i); }));
  SearchOptions with_terms = search;
  with_terms.beam = std::max(search.beam, kMinConstrainedBeam);
  with_terms.sampling_topk = 1;  // terms are met by search: those sentences are not sampled
  std::vector<std::vector<Hypothesis>> out(sources.size());
  std::vector<size_t> starts = split_into_batches(free, options_.batch_size, options_.parallel_batches);
  for (size_t start : split_into_batches(order.size() - free, options_.batch_size, options_.parallel_batches)) {
    if (start > 0) starts.push_back(free + start);
  }
  // Jobs: the positions in `order` each decodes, a batch or a batch's part;
  // a batch's parts make one round, decoded at once.
  size_t largest = 0;
  for (size_t b = 0; b + 1 < starts.size(); ++b) largest = std::max(largest, starts[b + 1] - starts[b]);
  const int64_t parts = parts_per_batch(largest);
  std::vector<std::vector<size_t>> jobs;
  std::vector<size_t> rounds{0};
  for (size_t b = 0; b + 1 < starts.size(); ++b) {
    for (auto& part : split_batch(starts[b], starts[b + 1], parts)) jobs.push_back(std::move(part));
    rounds.push_back(jobs.size());
  }
  // Once for all batches: concurrent batches must not switch the mode under each other.
  EvalMode eval(*model_);
  const auto decode_job = [&](size_t j) {
    std::vector<BatchSource> batch;
    for (size_t k : jobs[j]) {
      const size_t i = order[k];
      batch.push_back({&sources[i], target_prefixes.empty() ? &no_prefix : &target_prefixes[i],
                       terms.empty() ? nullptr : &terms[i]});
    }
    auto results = translate_batch(batch, jobs[j].front() >= free ? with_terms : search);
    for (size_t k = 0; k < jobs[j].size(); ++k) out[order[jobs[j][k]]] = std::move(results[k]);
  };
  if (parts > 1) {
    run_parallel_rounds(rounds, parts, decode_job);
  } else {
    run_parallel_batches(jobs.size(), options_.parallel_batches, decode_job);
  }
  return out;
}

int64_t Translator::parts_per_batch(size_t largest_batch) const {
  const bool split = options_.split_batches && options_.parallel_batches == 1 && device_.is_cpu();
  return split ? std::min<int64_t>(std::max(1, at::get_num_threads()), static_cast<int64_t>(largest_batch)) : 1;
}

std::vector<int64_t> Translator::with_target_tag(const std::vector<int64_t>& target) const {
  if (target_tag_ < 0) return target;
  std::vector<int64_t> out{target_tag_};
  out.insert(out.end(), target.begin(), target.end());
  return out;
}

int64_t Translator::source_start() const {
  return (model_->config().source_bos ? 1 : 0) + (source_tag_ >= 0 ? 1 : 0);
}

torch::Tensor Translator::wrap_sources(const std::vector<BatchSource>& batch) const {
  // [batch, longest + 2 (+ 1 with a tag)]: sos, the tag if any, ids, eos,
  // then padding; without sos or eos where the model reads none.
  const auto& c = model_->config();
  const size_t bos = c.source_bos ? 1 : 0, eos = c.source_eos ? 1 : 0;
  const size_t start = bos + (source_tag_ >= 0 ? 1 : 0);
  size_t longest = 0;
  for (const auto& s : batch) longest = std::max(longest, s.ids->size());
  auto src = torch::full({static_cast<int64_t>(batch.size()), static_cast<int64_t>(longest + start + eos)},
                         c.src_pad_idx, torch::kLong);
  auto a = src.accessor<int64_t, 2>();
  for (size_t r = 0; r < batch.size(); ++r) {
    const auto& ids = *batch[r].ids;
    if (bos) a[r][0] = source_bos_;
    if (source_tag_ >= 0) a[r][bos] = source_tag_;
    for (size_t j = 0; j < ids.size(); ++j) a[r][j + start] = ids[j];
    if (eos) a[r][ids.size() + start] = source_eos_;
  }
  return src;
}

std::vector<std::vector<Hypothesis>> Translator::translate_batch(const std::vector<BatchSource>& batch,
                                                                 const SearchOptions& options) {
  c10::InferenceMode inference;
  PrecisionScope precision_scope(options_.precision, device_);
  SearchBatch sentences;
  bool any_prefix = false, any_terms = false;
  for (const auto& s : batch) {
    const auto limit = max_output_length(static_cast<int64_t>(s.ids->size()), options, model_->config().max_len);
    sentences.target_prefixes.push_back(with_target_tag(*s.target_prefix));
    const auto& prefix = sentences.target_prefixes.back();
    // A prefix is always kept whole: the limit makes room for it and eos (check_lengths keeps that within max_len).
    sentences.max_lengths.push_back(std::max(limit, static_cast<int64_t>(prefix.size()) + 1));
    any_prefix = any_prefix || !prefix.empty();
    sentences.constraints.push_back(s.terms ? *s.terms : TermConstraints{});
    for (auto& c : sentences.constraints.back()) {  // to the model's input: after sos and the tag
      if (c.source_end > c.source_begin) c.source_begin += source_start(), c.source_end += source_start();
    }
    any_terms = any_terms || (s.terms && !s.terms->empty());
    if (sampling_enabled(options)) sentences.sample_keys.push_back(sample_key(options.seed, *s.ids, prefix));
  }
  if (!any_prefix) sentences.target_prefixes.clear();
  if (!any_terms) sentences.constraints.clear();
  // Terms start where the cross-attention is on their source: tracked for them too.
  ModelScorer scorer(*model_, wrap_sources(batch), options.cached,
                     options_.coverage.check || any_terms ? coverage_layer() : -1);
  auto found = search(scorer, sentences, ids_, options);
  for (size_t s = 0; s < found.size(); ++s) {
    for (auto& h : found[s]) {
      h.length_limited = static_cast<int64_t>(h.tokens.size()) + 1 >= sentences.max_lengths[s];
      if (target_tag_ >= 0 && !h.tokens.empty() && h.tokens.front() == target_tag_) h.tokens.erase(h.tokens.begin());
      if (source_tag_ >= 0) fold_tag(h.coverage);
      add_missing_ends(h.coverage, model_->config(), batch[s].ids->size());
    }
  }
  return found;
}

}  // namespace nmt::decode
