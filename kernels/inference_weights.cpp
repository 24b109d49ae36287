#include "kernels/inference_weights.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "util/precision.h"

namespace nmt::kernels {
namespace {

torch::Tensor stacked(const std::vector<torch::Tensor>& parts) {
  if (parts.empty() || !parts.front().defined()) return {};
  return parts.size() == 1 ? parts.front() : torch::cat(parts);
}

}  // namespace

torch::Tensor InferenceWeights::linear(const torch::Tensor& x, const std::vector<torch::Tensor>& weights,
                                       const std::vector<torch::Tensor>& biases, bool relu) {
  TORCH_CHECK(!weights.empty() && weights.size() == biases.size(), "a linear needs one bias (or none) per weight");
  const auto activated = [relu](const torch::Tensor& y) { return relu ? torch::relu(y) : y; };
  if (torch::GradMode::is_enabled()) {
    release();  // training changes the weights every step: what inference kept is stale
    return activated(torch::linear(x, stacked(weights), stacked(biases)));
  }
  const auto chosen = choose(weights, biases, x.device());
  if (chosen.packed) return chosen.packed->forward(x, relu);
  const auto& weight = chosen.weight;
  const auto& bias = chosen.bias;
  if (x.dim() == 2) return activated(torch::linear(x, weight, bias));
  // As rows: a 2-D input takes the fused bias path (addmm), a 3-D one a
  // product and then a separate pass to add the bias.
  auto out_sizes = x.sizes().vec();
  out_sizes.back() = weight.size(0);
  return activated(torch::linear(x.reshape({-1, x.size(-1)}), weight, bias).view(out_sizes));
}

std::shared_ptr<const PackedLinear> InferenceWeights::packed(const std::vector<torch::Tensor>& weights,
                                                             const std::vector<torch::Tensor>& biases) {
  TORCH_CHECK(!weights.empty() && weights.size() == biases.size(), "a linear needs one bias (or none) per weight");
  return choose(weights, biases, c10::Device(c10::kCPU)).packed;
}

InferenceWeights::Choice InferenceWeights::choose(const std::vector<torch::Tensor>& weights,
                                                  const std::vector<torch::Tensor>& biases,
                                                  const c10::Device& device) {
  // int8 (kChar) inside an int8 PrecisionScope on the CPU, else autocast's dtype.
  const auto dtype = int8_products_active() && device.is_cpu() && PackedLinear::available(torch::kChar)
                         ? torch::kChar
                         : active_autocast_dtype(device).value_or(weights.front().scalar_type());
  // Batches may be decoded concurrently (decode/parallel_batches.h).
  std::lock_guard<std::mutex> lock(mutex_);
  refresh(weights, biases, dtype, device);
  return Choice{weight_, bias_, packed_};
}

void InferenceWeights::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!weight_.defined() && !bias_.defined() && !packed_) return;
  weight_ = torch::Tensor();
  bias_ = torch::Tensor();
  packed_.reset();
  sources_.clear();
}

void InferenceWeights::refresh(const std::vector<torch::Tensor>& weights, const std::vector<torch::Tensor>& biases,
                               c10::ScalarType dtype, const c10::Device& device) {
  const auto source = [](const torch::Tensor& p) {
    return std::make_pair<const void*, uint32_t>(p.defined() ? p.data_ptr() : nullptr, p.defined() ? p._version() : 0);
  };
  // Compared in place: this runs at every call of every linear of a decoding step.
  bool same = (weight_.defined() || packed_) && dtype == dtype_ && device == device_ &&
              sources_.size() == weights.size() + biases.size();
  for (size_t i = 0; same && i < weights.size(); ++i) same = sources_[i] == source(weights[i]);
  for (size_t i = 0; same && i < biases.size(); ++i) same = sources_[weights.size() + i] == source(biases[i]);
  if (same) return;
  std::vector<std::pair<const void*, uint32_t>> sources;
  for (const auto* list : {&weights, &biases}) {
    for (const auto& p : *list) sources.push_back(source(p));
  }
  weight_ = bias_ = torch::Tensor();
  packed_.reset();
  if (device.is_cpu() && PackedLinear::available(dtype)) {
    // On the CPU: weights packed once (kernels/packed_linear.h), for oneDNN's
    // bf16 and int8 products and for fp32's own, whose rows' bits do not
    // depend on their batch.
    packed_ = std::make_shared<const PackedLinear>(stacked(weights), stacked(biases), dtype);
  } else {
    // A single fp32 parameter is used as it is (no copy); casts and stacks are made once.
    weight_ = stacked(weights).to(dtype).contiguous();
    bias_ = stacked(biases);
    if (bias_.defined()) bias_ = bias_.to(dtype);
  }
  sources_ = std::move(sources);
  dtype_ = dtype;
  device_ = device;
}

}  // namespace nmt::kernels
