// The residual wrapper shared by encoder and decoder layers.
#pragma once


#include "kernels/residual_norm.h"
#include "model/dropout.h"
#include "model/layer_norm.h"

namespace nmt::model {

// Post-LN (reference): norm(x + dropout(f(x))).  Pre-LN: x + dropout(f(norm(x))).
template <typename Sublayer>
torch::Tensor residual(const torch::Tensor& x, LayerNorm& norm, Dropout& dropout, bool pre_norm,
                       Sublayer&& f) {
  if (pre_norm) return kernels::add_residual(x, dropout(f(norm(x))));
  return norm->forward_sum(dropout(f(x)), x);
}

}  // namespace nmt::model
