// Token-level cross-entropy with label smoothing, ignoring padding.
#pragma once

#include <torch/types.h>

namespace nmt::train {

struct LossParts {
  torch::Tensor smoothed_sum;  // what is optimised (scalar)
  torch::Tensor nll_sum;       // plain negative log-likelihood (scalar, no grad)
  int64_t tokens = 0;          // non-pad targets
};

// logits [batch, len, vocab], gold [batch, len]. The smoothing mass is spread
// uniformly over the vocabulary except the pad id (Szegedy et al.).
LossParts label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& gold, int64_t pad_id,
                              double smoothing);

}  // namespace nmt::train
