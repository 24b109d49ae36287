// The reference's own LayerNorm: biased variance, eps 1e-12, parameters named
// gamma and beta (not weight/bias), which is what its state_dict keys use.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace nmt::model {

class LayerNormImpl : public torch::nn::Module {
 public:
  explicit LayerNormImpl(int64_t d_model, double eps = 1e-12);

  // [batch, len, d_model] -> [batch, len, d_model]
  torch::Tensor forward(const torch::Tensor& x);

  // forward(a + b), the post-norm residual's end: [batch, len, d_model] each.
  // Without a gradient to keep, on the CPU, one fused pass
  // (kernels/residual_norm.h).
  torch::Tensor forward_sum(const torch::Tensor& a, const torch::Tensor& b);

  torch::Tensor gamma, beta;
  double eps() const { return eps_; }

 private:
  double eps_;
};
TORCH_MODULE(LayerNorm);

}  // namespace nmt::model
