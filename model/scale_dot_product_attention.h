// Scaled dot-product attention over split heads, as the reference computes it:
// scores divided by sqrt(d_head), masked positions set to -10000 (not -inf).
#pragma once

#include <utility>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/dropout.h"

namespace nmt::model {

class ScaleDotProductAttentionImpl : public torch::nn::Module {
 public:
  // dropout: applied to the attention weights while training (0: none, as the
  // reference). The weights returned are those before dropout.
  explicit ScaleDotProductAttentionImpl(double dropout = 0.0);

  // q [batch, head, len_q, d_head], k/v [batch, head, len_k, d_head],
  // mask broadcastable to [batch, head, len_q, len_k] (0 = hidden) or undefined.
  // Returns (values [batch, head, len_q, d_head], weights [batch, head, len_q, len_k]).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& q, const torch::Tensor& k,
                                                  const torch::Tensor& v, const torch::Tensor& mask);

  Dropout dropout{nullptr};
};
TORCH_MODULE(ScaleDotProductAttention);

// The score written where the mask is 0 (the reference's constant).
constexpr double kMaskedScore = -10000.0;

}  // namespace nmt::model
