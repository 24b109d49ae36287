// linear2(dropout(relu(linear1(x)))), names as in the reference.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/dropout.h"
#include "model/linear.h"

namespace nmt::model {

class PositionwiseFeedForwardImpl : public torch::nn::Module {
 public:
  PositionwiseFeedForwardImpl(int64_t d_model, int64_t hidden, double drop_prob);

  // [batch, len, d_model] -> [batch, len, d_model]
  torch::Tensor forward(const torch::Tensor& x);

  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr};
};
TORCH_MODULE(PositionwiseFeedForward);

}  // namespace nmt::model
