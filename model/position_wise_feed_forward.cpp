#include "model/position_wise_feed_forward.h"

#include <torch/torch.h>

namespace nmt::model {

PositionwiseFeedForwardImpl::PositionwiseFeedForwardImpl(int64_t d_model, int64_t hidden, double drop_prob,
                                                         kernels::Activation activation)
    : activation_(activation) {
  linear1 = register_module("linear1", Linear(d_model, hidden));
  linear2 = register_module("linear2", Linear(hidden, d_model));
  dropout = register_module("dropout", Dropout(drop_prob));
}

torch::Tensor PositionwiseFeedForwardImpl::forward(const torch::Tensor& x) {
  // [batch, len, d_model]
  const bool relu = activation_ == kernels::Activation::relu;
  if (!is_training()) {  // dropout is the identity
    if (relu) return linear2(linear1->forward_relu(x));
    if (!torch::GradMode::is_enabled()) return linear2(kernels::activate_for_inference(linear1(x), activation_));
  }
  return linear2(dropout(relu ? torch::relu(linear1(x)) : kernels::activate(linear1(x), activation_)));
}

}  // namespace nmt::model
