// How a translation is searched for: beam width, n-best, length penalty and
// the output length limit. Shared by greedy and beam search and the translator.
#pragma once

#include <cstdint>

#include "decode/length_penalty.h"

namespace nmt::decode {

struct SearchOptions {
  int64_t beam = 4;              // 1: greedy decoding
  int64_t nbest = 1;             // hypotheses returned per sentence, at most `beam`
  // GNMT length penalty alpha (Wu et al. 2016): scores are divided by
  // ((5 + length) / 6)^alpha. 0.6 is the value the GNMT paper tuned and what
  // Marian and OpenNMT users are used to; 0 ranks by plain sum of log-probs.
  double length_penalty = 0.6;
  // The penalty's form: GNMT's above, or length^alpha as CTranslate2 divides
  // (what models imported from it decode with by default).
  LengthPenaltyForm length_penalty_form = LengthPenaltyForm::kGnmt;
  // Beam search ends a sentence once beam x patience hypotheses have
  // finished (CTranslate2's and fairseq's rule at 1, the default): more
  // patience searches longer for a better-scoring one. Without a length
  // penalty the rule is exact instead: a sentence ends as soon as no live
  // row can beat the nbest finished ones (scores only fall as hypotheses
  // grow), and patience plays no part.
  double patience = 1.0;
  // No eos before this many tokens (the length limit still ends a
  // hypothesis); 0: none.
  int64_t min_length = 0;
  // > 0: no n-gram of this size twice in a hypothesis (decode/search_rules.h).
  int64_t no_repeat_ngram_size = 0;
  // A token already in the hypothesis (its target prefix included) has its
  // log-probability multiplied by this before the row is renormalized: above
  // 1 repeats become less likely, below 1 more; 1: off.
  double repetition_penalty = 1.0;
  // Random sampling (decode/sampling.h): 1 is argmax search (no sampling);
  // K > 1 draws from the K most probable tokens, 0 from all of them.
  int64_t sampling_topk = 1;
  double sampling_topp = 1.0;         // when sampling: then the smallest set reaching this probability
  double sampling_temperature = 1.0;  // when sampling: log-probabilities divided by it first
  uint64_t seed = 0;                  // when sampling: the same seed, the same samples
  // At most floor(a * source_tokens + b) output tokens (eos included), and
  // never more than the model's max_len. Multi30k-like data stays well within
  // 1.5x; the constant keeps very short sources from being cut.
  double max_len_a = 1.5;
  int64_t max_len_b = 10;
  // A target prefix as CTranslate2 decodes one (what models imported from it
  // decode with): its tokens add nothing to the score, and on the first
  // step after it only the best candidate may end a hypothesis. false: the
  // prefix's tokens are scored with the model's log-probabilities.
  bool ctranslate2_prefix = false;
  // false: recompute the whole prefix at every step (the tutorial way, no
  // key/value cache). Slow; kept as the reference that the cache is checked
  // against and as the baseline of bench/decode_bench.
  bool cached = true;

  // Throws nmt::UsageError naming the offending option.
  void validate() const;
};

// Every field equal (a new field must be added there too).
bool operator==(const SearchOptions& a, const SearchOptions& b);

// The target side's special ids (from the vocabulary, not hard-coded).
struct SearchIds {
  int64_t bos = 2;  // the decoder starts from it
  int64_t eos = 3;  // ends a hypothesis
  int64_t pad = 1;  // never generated
};

// Output tokens (eos included) allowed for a source of `source_tokens`
// subwords (sos/eos not counted): clamp(floor(a * n + b), 1, model_max_len).
int64_t max_output_length(int64_t source_tokens, const SearchOptions& options, int64_t model_max_len);

}  // namespace nmt::decode
