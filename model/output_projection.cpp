#include "model/output_projection.h"

#include <cmath>

#include <torch/torch.h>

namespace nmt::model {

OutputProjectionImpl::OutputProjectionImpl(int64_t d_model, int64_t vocab_size) : tied_(false) {
  // nn.Linear's default initialisation.
  const double bound = 1.0 / std::sqrt(static_cast<double>(d_model));
  weight_ = register_parameter("weight", torch::empty({vocab_size, d_model}).uniform_(-bound, bound));
  bias = register_parameter("bias", torch::empty({vocab_size}).uniform_(-bound, bound));
}

OutputProjectionImpl::OutputProjectionImpl(torch::Tensor tied_weight) : tied_(true), weight_(std::move(tied_weight)) {
  bias = register_parameter("bias", torch::zeros({weight_.size(0)}));
}

torch::Tensor OutputProjectionImpl::forward(const torch::Tensor& x) {
  // [batch, len, d_model] -> [batch, len, vocab]
  return inference_.linear(x, {weight_}, {bias});
}

}  // namespace nmt::model
