#include "model/inference_weights.h"

#include <torch/torch.h>

#include "util/precision.h"

namespace nmt::model {
namespace {

torch::Tensor stacked(const std::vector<torch::Tensor>& parts) {
  if (parts.empty() || !parts.front().defined()) return {};
  return parts.size() == 1 ? parts.front() : torch::cat(parts);
}

}  // namespace

torch::Tensor InferenceWeights::linear(const torch::Tensor& x, const std::vector<torch::Tensor>& weights,
                                       const std::vector<torch::Tensor>& biases) {
  TORCH_CHECK(!weights.empty() && weights.size() == biases.size(), "a linear needs one bias (or none) per weight");
  if (torch::GradMode::is_enabled()) return torch::linear(x, stacked(weights), stacked(biases));
  const auto dtype = active_autocast_dtype(x.device()).value_or(weights.front().scalar_type());
  refresh(weights, biases, dtype);
  return torch::linear(x, weight_, bias_);
}

void InferenceWeights::refresh(const std::vector<torch::Tensor>& weights, const std::vector<torch::Tensor>& biases,
                               c10::ScalarType dtype) {
  std::vector<std::pair<const void*, uint32_t>> sources;
  for (const auto* list : {&weights, &biases}) {
    for (const auto& p : *list) sources.emplace_back(p.defined() ? p.data_ptr() : nullptr, p.defined() ? p._version() : 0);
  }
  if (weight_.defined() && sources == sources_ && dtype == dtype_) return;
  // A single fp32 parameter is used as it is (no copy); casts and stacks are made once.
  weight_ = stacked(weights).to(dtype).contiguous();
  bias_ = stacked(biases);
  if (bias_.defined()) bias_ = bias_.to(dtype);
  sources_ = std::move(sources);
  dtype_ = dtype;
}

}  // namespace nmt::model
