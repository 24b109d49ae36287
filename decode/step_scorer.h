// What a search needs from a model: log-probabilities of the next token given
// each live row's prefix, and a way to reorder, duplicate or drop rows. The
// model implements it (decode/model_scorer.h); tests implement it with known
// distributions, so the search can be checked where the optimum is known.
#pragma once

#include <vector>

#include <torch/types.h>

namespace nmt::decode {

class StepScorer {
 public:
  virtual ~StepScorer() = default;

  // prefixes: [rows, t] int64 on the CPU, bos first, one row per live
  // hypothesis, all of the same length. Returns [rows, vocab] log-probabilities
  // (float, on any device) of the token after each prefix.
  virtual torch::Tensor next_log_probs(const torch::Tensor& prefixes) = 0;

  // Keeps rows `index` ([new_rows] int64, CPU) in that order: duplicates a row
  // into beams, reorders beams, drops finished sentences.
  virtual void select_rows(const torch::Tensor& index) = 0;

  // Row `row`'s cross-attention mass per source position so far (see
  // Hypothesis::coverage); empty when the scorer does not track it.
  virtual std::vector<float> coverage(int64_t /*row*/) const { return {}; }
};

}  // namespace nmt::decode
