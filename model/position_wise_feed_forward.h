// linear2(dropout(activation(linear1(x)))), names as in the reference; the
// activation is the reference's ReLU unless a model imported from another
// engine brings its own (kernels/activation.h).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "kernels/activation.h"
#include "model/dropout.h"
#include "model/linear.h"

namespace nmt::model {

class PositionwiseFeedForwardImpl : public torch::nn::Module {
 public:
  PositionwiseFeedForwardImpl(int64_t d_model, int64_t hidden, double drop_prob,
                              kernels::Activation activation = kernels::Activation::relu);

  // [batch, len, d_model] -> [batch, len, d_model]
  torch::Tensor forward(const torch::Tensor& x);

  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr};
  kernels::Activation activation() const { return activation_; }

 private:
  kernels::Activation activation_;
};
TORCH_MODULE(PositionwiseFeedForward);

}  // namespace nmt::model
