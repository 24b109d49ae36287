// Everything that shapes a step's log-probabilities before a search picks
// from them, in one place for greedy and beam search: the length limit and
// the tokens never generated (decode/search_step.h), the target prefix, the
// search rules (decode/search_rules.h) and the sampling distribution
// (decode/sampling.h); and the keys candidates are ranked by (the scores
// themselves, or scores plus each sentence's Gumbel noise when sampling).
#pragma once

#include <vector>

#include <torch/types.h>

#include "decode/search_batch.h"
#include "decode/search_options.h"

namespace nmt::decode {

class NextTokenRules {
 public:
  // Keeps references: all three must outlive it. Throws std::invalid_argument
  // when a sentence's limit leaves no room for its target prefix and eos.
  NextTokenRules(const SearchOptions& options, const SearchIds& ids, const SearchBatch& batch);

  // In place on log_probs [rows, vocab] for rows whose prefixes are
  // `prefixes` [rows, t + 1] (CPU, bos first) and whose sentences are
  // row_sentence[r]. In order: a row at its length limit may only end (eos
  // keeps its log-probability), pad and bos never come; the search rules;
  // when sampling, the sampling distribution; last, a row inside its target
  // prefix may only produce the prefix's next token, with the model's
  // log-probability for it (0 with options.ctranslate2_prefix).
  void shape(torch::Tensor& log_probs, const torch::Tensor& prefixes, const std::vector<int64_t>& row_sentence) const;

  bool sampling() const { return sampling_; }

  // What candidates are ranked by at step t: `scores` [sentences.size(),
  // columns] itself, or when sampling, plus each sentence's Gumbel noise
  // (double; a batch without sample_keys keys sentence s by seed and s).
  torch::Tensor keys(const torch::Tensor& scores, const std::vector<int64_t>& sentences, int64_t t) const;

 private:
  const SearchOptions& options_;
  const SearchIds& ids_;
  const SearchBatch& batch_;
  bool sampling_;
};

}  // namespace nmt::decode
