#include "model/inference_weights.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/torch.h>

#include "util/precision.h"

namespace nmt::model {
namespace {

torch::Tensor stacked(const std::vector<torch::Tensor>& parts) {
  if (parts.empty() || !parts.front().defined()) return {};
  return parts.size() == 1 ? parts.front() : torch::cat(parts);
}

// Symmetric per-output-channel int8 weights, packed by the quantized engine.
c10::intrusive_ptr<LinearPackedParamsBase> pack_int8(const torch::Tensor& weight, const torch::Tensor& bias) {
  const auto w = weight.to(torch::kFloat).contiguous();
  const auto scales = (w.abs().amax(1).to(torch::kDouble) / 127.0).clamp_min(1e-12);
  const auto zero_points = torch::zeros({w.size(0)}, torch::kLong);
  const auto q = at::quantize_per_channel(w, scales, zero_points, 0, torch::kQInt8);
  static const auto prepack = c10::Dispatcher::singleton()
                                  .findSchemaOrThrow("quantized::linear_prepack", "")
                                  .typed<c10::intrusive_ptr<LinearPackedParamsBase>(at::Tensor, c10::optional<at::Tensor>)>();
  return prepack.call(q, bias.defined() ? c10::optional<at::Tensor>(bias.to(torch::kFloat)) : c10::nullopt);
}

}  // namespace

torch::Tensor InferenceWeights::linear(const torch::Tensor& x, const std::vector<torch::Tensor>& weights,
                                       const std::vector<torch::Tensor>& biases) {
  TORCH_CHECK(!weights.empty() && weights.size() == biases.size(), "a linear needs one bias (or none) per weight");
  if (torch::GradMode::is_enabled()) return torch::linear(x, stacked(weights), stacked(biases));
  const bool int8 = int8_linears_active() && x.device().is_cpu();
  const auto dtype = int8 ? torch::kQInt8 : active_autocast_dtype(x.device()).value_or(weights.front().scalar_type());
  torch::Tensor weight, bias;
  c10::intrusive_ptr<LinearPackedParamsBase> packed;
  {
    // Batches may be decoded concurrently (decode/parallel_batches.h).
    std::lock_guard<std::mutex> lock(mutex_);
    refresh(weights, biases, dtype);
    weight = weight_;
    bias = bias_;
    packed = int8_;
  }
  // As rows: a 2-D input takes the fused bias path (addmm), a 3-D one a
  // product and then a separate pass to add the bias.
  auto out_sizes = x.sizes().vec();
  out_sizes.back() = weight.size(0);
  const auto rows = x.reshape({-1, x.size(-1)});
  if (int8) return packed->apply_dynamic(rows.to(torch::kFloat).contiguous(), false).view(out_sizes);
  return torch::linear(rows, weight, bias).view(out_sizes);
}

void InferenceWeights::refresh(const std::vector<torch::Tensor>& weights, const std::vector<torch::Tensor>& biases,
                               c10::ScalarType dtype) {
  std::vector<std::pair<const void*, uint32_t>> sources;
  for (const auto* list : {&weights, &biases}) {
    for (const auto& p : *list) sources.emplace_back(p.defined() ? p.data_ptr() : nullptr, p.defined() ? p._version() : 0);
  }
  if (weight_.defined() && sources == sources_ && dtype == dtype_) return;
  // A single fp32 parameter is used as it is (no copy); casts and stacks are made once.
  const bool int8 = dtype == torch::kQInt8;
  weight_ = stacked(weights);
  bias_ = stacked(biases);
  int8_ = int8 ? pack_int8(weight_, bias_) : c10::intrusive_ptr<LinearPackedParamsBase>();
  if (!int8) weight_ = weight_.to(dtype).contiguous();
  if (bias_.defined() && !int8) bias_ = bias_.to(dtype);
  sources_ = std::move(sources);
  dtype_ = dtype;
}

}  // namespace nmt::model
