// Dropout with the reference's semantics (zero each element with probability
// p while training, scale the rest by 1 / (1 - p), identity in eval mode) and
// a fast mask on the CPU (kernels/dropout_mask.h: a counter-based hash of
// (seed, element index), in parallel). The seed is one draw from the default
// CPU generator, so runs stay reproducible and resumable (its state is in
// every checkpoint). Other devices use torch::dropout.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace nmt::model {

class DropoutImpl : public torch::nn::Module {
 public:
  explicit DropoutImpl(double p);

  // [any shape] -> same shape and dtype
  torch::Tensor forward(const torch::Tensor& x);

  double p() const { return p_; }

 private:
  double p_;
};
TORCH_MODULE(Dropout);

}  // namespace nmt::model
