// Translation of text lines with a loaded model: planning each line into
// pieces that fit the model (decode/line_plan.h), batching of length-sorted
// pieces, search, rebuilding each line, and results back in input order.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "decode/coverage_check.h"
#include "decode/hypothesis.h"
#include "decode/line_plan.h"
#include "decode/search_options.h"
#include "model/transformer.h"
#include "text/placeholders.h"
#include "util/precision.h"
#include "vocab/vocabularies.h"

namespace nmt::decode {

struct TranslatorOptions {
  SearchOptions search;
  int64_t batch_size = 32;  // sentences per batch; each takes `beam` rows
  Precision precision = Precision::kFp32;  // bf16: under bf16 autocast; int8: int8 products (CPU)
  // Batches decoded at once, each on one core (decode/parallel_batches.h);
  // 1: one batch at a time on every thread the process has.
  int64_t parallel_batches = 1;
  // One batch at a time (parallel_batches 1) on several CPU threads: each
  // batch's sentences dealt into one part per thread, the parts decoded at
  // once, each on one core (decode/parallel_batches.h); the next batch starts
  // when all its parts have ended. Off, and for batches of one sentence:
  // every product of the batch is split over the threads instead. The
  // translator's command line turns it on (not with --serve); off by default
  // here.
  bool split_batches = false;
  // Each line a paragraph, split into sentences by ICU's rules for
  // source_language (the model's source code; "" for language-neutral rules).
  bool split_sentences = false;
  std::string source_language;
  // Each line is SOURCE<TAB>PREFIX: the translation of its first sentence
  // starts with PREFIX (encoded with the target vocabulary). A line without
  // a tab has no prefix.
  bool target_prefix = false;
  // The longest source given to the model in one piece (decode/line_plan.h):
  // the trained p99 from the model directory, or --max-piece-tokens; 0: as
  // long as its position table takes.
  int64_t max_piece_tokens = 0;
  // What the model's training sentences look like (DIR/lengths.json): where
  // a long sentence without punctuation is best split, and how its pieces
  // are dressed as sentences (text/clause_shape.h); and the target's language code.
  TrainedShapes shapes;
  std::string target_language;
  // A piece of the source vocabulary put after sos before every source: the
  // target language's tag of a model trained on several directions
  // (data/language_tags.h); "": none. Attention and coverage leave it out:
  // they read as for a source without it.
  std::string source_tag;
  // A piece of the target vocabulary every translation starts with, decoded
  // as a target prefix and left out of its tokens and text (score_targets
  // scores the given tokens after it): an Argos package's target_prefix (a
  // multilingual model's target language). "": none.
  std::string target_tag;
  // Unknown target tokens written as the source piece the model attends to
  // most as it writes them (CTranslate2's replace_unknowns;
  // decode/unknown_copies.h), by decoder layer `alignment_layer` (negative:
  // from the last; unset: the layer that aligns words,
  // default_alignment_layer) with its first `alignment_heads` heads
  // averaged (0: all).
  bool replace_unknowns = false;
  std::optional<int64_t> alignment_layer;
  int64_t alignment_heads = 0;
  // Whether each piece's translation covers its source (decode/coverage_check.h);
  // off here, on in the command line and the server.
  CoverageOptions coverage{false};
  // What is taken out of each line and put back verbatim (text/placeholders.h).
  text::PlaceholderOptions placeholders;
  void validate() const;    // UsageError naming the option
};

// Hypotheses for every piece of every plan, [plan][piece][rank]: the
// translator's own batches, or the server's batcher.
using PlanTranslator = std::function<std::vector<std::vector<std::vector<Hypothesis>>>(const std::vector<LinePlan>&)>;
// Runs a call that uses the model on the thread allowed to (the server's batcher worker).
using ModelCall = std::function<void(const std::function<void()>&)>;

class Translator {
 public:
  // Decoding runs in eval mode (the model's mode is restored afterwards);
  // inputs go to the device its parameters are on.
  Translator(model::Transformer model, vocab::Vocabularies vocabs, TranslatorOptions options);
  // Without vocabularies: only translate_ids() and cross_attention() work.
  Translator(model::Transformer model, SearchIds target_ids, int64_t source_bos, int64_t source_eos,
             TranslatorOptions options);

  // One result per line, in the order of `lines`. A line that is empty (or
  // only whitespace), or not valid UTF-8, gets no hypotheses.
  std::vector<LineTranslation> translate(const std::vector<std::string>& lines);

  // Sources as subword ids without sos/eos, each at most max_source_tokens():
  // hypotheses per source, in input order. Sorts by length into batches of
  // options.batch_size sentences, options.parallel_batches of them at once
  // (or each split over the threads: options.split_batches).
  std::vector<std::vector<Hypothesis>> translate_ids(const std::vector<std::vector<int64_t>>& sources);
  // The same with, per source (or none when empty), target ids its
  // translations start with, under `search` instead of options().search;
  // and per source (or none when empty) the glossary terms its translation
  // must contain: those sources are searched in batches of their own, with
  // a beam of at least kMinConstrainedBeam (decode/term_constraints.h) and
  // never sampled, so that a sentence's translation never depends on what
  // shares its batch.
  std::vector<std::vector<Hypothesis>> translate_ids(const std::vector<std::vector<int64_t>>& sources,
                                                     const std::vector<std::vector<int64_t>>& target_prefixes,
                                                     const SearchOptions& search,
                                                     const std::vector<TermConstraints>& terms = {});
  // Every piece of every plan in one set of batches: hypotheses [plan][piece].
  std::vector<std::vector<std::vector<Hypothesis>>> translate_plans(const std::vector<LinePlan>& plans);
  // Every piece of every plan through `translate` (this translator's
  // batches when null), then, with the coverage check on, the pieces whose
  // translation fails it split further and translated again, round by round
  // (decode/checked_translation.h): the plans change where that helped, and
  // record each piece's check. Last, unknown tokens are copied from the
  // source where the options ask (decode/unknown_copies.h), through
  // `model_call` (a direct call when null).
  std::vector<std::vector<std::vector<Hypothesis>>> translate_checked(std::vector<LinePlan>& plans,
                                                                      const PlanTranslator& translate = nullptr,
                                                                      const ModelCall& model_call = nullptr);

  // Given translations scored token by token (teacher forcing), as
  // CTranslate2's score_batch and Marian's scorer do: for each pair of
  // sources[i] and targets[i] (ids without sos/eos), the log-probability of
  // every target token and then of the end token. In batches of
  // options().batch_size, in the options' precision. A source or target
  // longer than the model takes is a DataError naming its index.
  std::vector<std::vector<float>> score_targets(const std::vector<std::vector<int64_t>>& sources,
                                                const std::vector<std::vector<int64_t>>& targets);

  // Teacher-forced pass over `target` (ids without bos/eos) for `source`
  // (ids without sos/eos): cross-attention of decoder layer `layer` (negative
  // counts from the last) averaged over its first `heads` heads (0: all),
  // [target + 1 (eos), source + 2 (sos, eos)], on the CPU.
  torch::Tensor cross_attention(const std::vector<int64_t>& source, const std::vector<int64_t>& target,
                                int64_t layer, int64_t heads = 0);

  // The two halves of translate(), for callers that batch lines themselves
  // (the server): plan() checks UTF-8 and splits and encodes one line
  // (thread-safe; no model call); rebuild() puts together the line from the
  // hypotheses that translate_ids() found for each of its plan's pieces.
  LinePlan plan(const std::string& line) const;
  LinePlan plan(const std::string& line, bool split_sentences) const;  // splitting as asked, not as the options say
  // Protecting spans as asked (a request's own literals), not as the options
  // say; and meeting `glossary`'s terms (null: the translator's own).
  LinePlan plan(const std::string& line, bool split_sentences, const text::PlaceholderOptions& placeholders,
                const std::shared_ptr<const memory::Glossary>& glossary = nullptr) const;
  LineTranslation rebuild(LinePlan plan, std::vector<std::vector<Hypothesis>> hypotheses) const;

  // Longest source the model takes: max_len minus sos, eos and the tag if any.
  int64_t max_source_tokens() const;
  // Longest source given to the model in one piece.
  int64_t max_piece_tokens() const;
  // The decoder layer (0-based) whose cross-attention checks coverage and
  // aligns words: the second to last (the last for a one-layer model).
  int64_t coverage_layer() const;
  // Parts each batch is decoded in at once, for batches of at most
  // `largest_batch` sentences: with split_batches (one batch at a time, CPU)
  // ATen's threads, at most one per sentence; else 1 (a batch of one
  // sentence splits its products over the threads instead).
  int64_t parts_per_batch(size_t largest_batch) const;
  // DataError quoting `text` when target prefix `ids` leaves no room for eos
  // within the model's max_len.
  void check_target_prefix(const std::vector<int64_t>& ids, const std::string& text) const;
  // Sentences with a remembered translation (the server's stored
  // corrections): plan() takes each such sentence out of its line and puts
  // the remembered text in its place, as it does placeholders
  // (decode/placeholder_restore.h); a line of nothing else never reaches the
  // model. Set before translating; called from any thread.
  using SentenceMemory = std::function<std::optional<std::string>(const std::string& sentence)>;
  void set_memory(SentenceMemory memory) { memory_ = std::move(memory); }
  // Terms every translation must contain where their source terms occur
  // (--glossary); null or empty: none. Set before translating.
  void set_glossary(std::shared_ptr<const memory::Glossary> glossary) { glossary_ = std::move(glossary); }
  const std::shared_ptr<const memory::Glossary>& glossary() const { return glossary_; }
  const TranslatorOptions& options() const { return options_; }
  const torch::Device& device() const { return device_; }
  const vocab::Vocabularies& vocabs() const { return vocabs_; }
  model::TransformerImpl& model() { return *model_; }

 private:
  struct BatchSource {
    const std::vector<int64_t>* ids;
    const std::vector<int64_t>* target_prefix;
    const TermConstraints* terms = nullptr;
  };
  text::MaskedText protect(const std::string& source, bool split_sentences,
                           const text::PlaceholderOptions& placeholders) const;
  std::vector<std::vector<Hypothesis>> translate_batch(const std::vector<BatchSource>& batch,
                                                       const SearchOptions& search);
  torch::Tensor wrap_sources(const std::vector<BatchSource>& batch) const;
  // DataError when options.alignment_layer or alignment_heads do not fit the model.
  void check_alignment() const;
  // Where a source's first id is in the model's input (after sos and the tag).
  int64_t source_start() const;
  // `target` after the target tag, if there is one.
  std::vector<int64_t> with_target_tag(const std::vector<int64_t>& target) const;
  void check_lengths(const std::vector<std::vector<int64_t>>& sources,
                     const std::vector<std::vector<int64_t>>& target_prefixes) const;
  // DataError "<which> has N tokens; the model writes at most M before its
  // end." when prefix `ids` leaves no room for eos within max_len.
  void check_prefix_length(const std::vector<int64_t>& ids, const std::string& which) const;

  model::Transformer model_;
  vocab::Vocabularies vocabs_;
  TranslatorOptions options_;
  SearchIds ids_;
  int64_t source_bos_, source_eos_;
  int64_t source_tag_ = -1;  // options.source_tag's id; -1: none
  int64_t target_tag_ = -1;  // options.target_tag's id; -1: none
  std::optional<LinePlanner> planner_;  // with vocabularies only
  SentenceMemory memory_;
  std::shared_ptr<const memory::Glossary> glossary_;
  std::optional<CoverageChecker> checker_;  // with vocabularies and the check on
  torch::Device device_;
};

}  // namespace nmt::decode
