// Dropout with the reference's semantics (zero each element with probability
// p while training, scale the rest by 1 / (1 - p), identity in eval mode) and
// a fast mask on the CPU. LibTorch 1.13's CPU bernoulli_ draws every element
// from the global generator one at a time, serially: it took 7% of an fp32
// and 23% of a bf16 training step (bench/train_speed_bench --profile). Here
// the mask comes from a counter-based hash of (seed, element index), in
// parallel; the seed is one draw from the default CPU generator, so runs stay
// reproducible and resumable (its state is in every checkpoint). Other
// devices use torch::dropout.
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

// The mask dropout multiplies by: 0 or 1 / (1 - p) per element, x's shape and
// dtype, CPU. Element i depends only on (seed, i).
torch::Tensor dropout_mask(const torch::Tensor& like, double p, uint64_t seed);

}  // namespace nmt::model
