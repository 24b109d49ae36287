// torch::nn::Linear (same construction, initialisation and parameter names,
// so state dicts do not change) whose forward without autograd keeps its
// weights ready for inference between calls (kernels/inference_weights.h).
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "kernels/inference_weights.h"

namespace nmt::model {

class LinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;

  // [..., in_features] -> [..., out_features]
  torch::Tensor forward(const torch::Tensor& x) { return inference_.linear(x, {weight}, {bias}); }

  // relu(forward(x)), the relu inside oneDNN's product where that runs.
  torch::Tensor forward_relu(const torch::Tensor& x) { return inference_.linear(x, {weight}, {bias}, true); }
  // The packed product forward would run without autograd on the CPU now, or
  // null (kernels/inference_weights.h).
  std::shared_ptr<const kernels::PackedLinear> packed() { return inference_.packed({weight}, {bias}); }

 private:
  kernels::InferenceWeights inference_;
};
TORCH_MODULE(Linear);

}  // namespace nmt::model
