#include "model/layer_norm.h"

#include <torch/torch.h>

#include "kernels/residual_norm.h"

namespace nmt::model {

LayerNormImpl::LayerNormImpl(int64_t d_model, double eps) : eps_(eps) {
  gamma = register_parameter("gamma", torch::ones({d_model}));
  beta = register_parameter("beta", torch::zeros({d_model}));
}

torch::Tensor LayerNormImpl::forward(const torch::Tensor& x) {
  // [batch, len, d_model] -> [batch, len, d_model]
  TORCH_CHECK(x.size(-1) == gamma.size(0), "LayerNorm expects last dim ", gamma.size(0), ", got ", x.sizes());
  // Without a gradient to keep, on the CPU: one vectorized pass that keeps
  // no statistics for a backward pass (kernels/residual_norm.h).
  if (kernels::layer_norm_of_sum_supported(x, torch::Tensor(), gamma)) {
    return kernels::layer_norm_of_sum(x, torch::Tensor(), gamma, beta, eps_);
  }
  // ATen's fused kernel computes the reference's formula, gamma * (x - mean) /
  // sqrt(var + eps) + beta with the biased variance, in one pass forward and
  // one backward instead of seven element-wise ones. Always in fp32, also
  // when bf16 activations arrive under autocast.
  const auto in = x.scalar_type() == gamma.scalar_type() ? x : x.to(gamma.scalar_type());
  return torch::layer_norm(in, {gamma.size(0)}, gamma, beta, eps_);
}

torch::Tensor LayerNormImpl::forward_sum(const torch::Tensor& a, const torch::Tensor& b) {
  // [batch, len, d_model] -> [batch, len, d_model]
  if (kernels::layer_norm_of_sum_supported(a, b, gamma)) return kernels::layer_norm_of_sum(a, b, gamma, beta, eps_);
  return forward(a + b);
}

}  // namespace nmt::model
