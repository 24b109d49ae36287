// The decoder's output layer, d_model -> vocabulary. Either its own `weight`
// and `bias` (the reference's nn.Linear) or, tied, the token embedding table as
// weight with its own bias; the tied weight is not registered twice, so the
// optimizer sees it once.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "kernels/inference_weights.h"

namespace nmt::model {

class OutputProjectionImpl : public torch::nn::Module {
 public:
  OutputProjectionImpl(int64_t d_model, int64_t vocab_size);
  explicit OutputProjectionImpl(torch::Tensor tied_weight);

  // [batch, len, d_model] -> [batch, len, vocab]
  torch::Tensor forward(const torch::Tensor& x);

  bool tied() const { return tied_; }
  const torch::Tensor& weight() const { return weight_; }
  // The packed product forward would run without autograd on the CPU now, or null.
  std::shared_ptr<const kernels::PackedLinear> packed() { return inference_.packed({weight_}, {bias}); }
  torch::Tensor bias;

 private:
  bool tied_;
  torch::Tensor weight_;
  kernels::InferenceWeights inference_;
};
TORCH_MODULE(OutputProjection);

}  // namespace nmt::model
