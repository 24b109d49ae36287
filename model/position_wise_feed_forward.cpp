#include "model/position_wise_feed_forward.h"

#include <torch/torch.h>

namespace nmt::model {

PositionwiseFeedForwardImpl::PositionwiseFeedForwardImpl(int64_t d_model, int64_t hidden, double drop_prob) {
  linear1 = register_module("linear1", Linear(d_model, hidden));
  linear2 = register_module("linear2", Linear(hidden, d_model));
  dropout = register_module("dropout", Dropout(drop_prob));
}

torch::Tensor PositionwiseFeedForwardImpl::forward(const torch::Tensor& x) {
  // [batch, len, d_model]
  if (!is_training()) return linear2(linear1->forward_relu(x));  // dropout is the identity
  return linear2(dropout(torch::relu(linear1(x))));
}

}  // namespace nmt::model
