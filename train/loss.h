// Token-level cross-entropy with label smoothing, ignoring padding.
#pragma once

#include <torch/types.h>

namespace nmt::train {

struct LossParts {
  torch::Tensor smoothed_sum;  // what is optimised (scalar, fp32)
  torch::Tensor nll_sum;       // plain negative log-likelihood (scalar, no grad)
  int64_t tokens = 0;          // non-pad targets
};

// logits [..., vocab] (fp32 or bf16), gold [...] with the same leading shape.
// The smoothing mass is spread uniformly over the vocabulary except the pad id
// (Szegedy et al.): per token (1 - eps) * nll + eps * mean over c != pad of
// -log p_c. Computed in fp32 whatever the logits' dtype, a block of rows at a
// time, with a hand-derived gradient (softmax minus the smoothed target), so
// that no [tokens, vocab] log-probability, one-hot or fp32 copy of the logits
// is ever held whole; the gradient comes back in the logits' dtype.
LossParts label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& gold, int64_t pad_id,
                              double smoothing);

}  // namespace nmt::train
