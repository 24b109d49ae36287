// The weights of a linear map (one Linear, or several stacked along the output
// dimension) as inference runs them, kept between calls: decoding calls every
// linear once per step, and rebuilding its weights each time (autocast's cast
// to bf16, the stacking of Q/K/V) costs as much as the product itself.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <c10/core/ScalarType.h>
#include <torch/types.h>

#include "kernels/packed_linear.h"

namespace nmt::kernels {

class InferenceWeights {
 public:
  // x [..., in] -> [..., sum of out_i] for weights [out_i, in] and biases
  // [out_i] (undefined: none). With autograd on: a plain linear of the
  // parameters (stacked when several), and whatever an inference call kept
  // is dropped (a validation's packed weights, stale after the next step,
  // would stay in memory through the training that follows). Without: the
  // weights in autocast's dtype (bf16 on the CPU: packed for oneDNN; fp32 on
  // the CPU: packed for kernels/step_product.h), or quantized to int8 and
  // packed inside an int8 PrecisionScope (util/precision.h), rebuilt only
  // when a parameter's data, version or that dtype changes.
  // Thread-safe.
  // With `relu`: relu of that (inside oneDNN's product where it runs).
  torch::Tensor linear(const torch::Tensor& x, const std::vector<torch::Tensor>& weights,
                       const std::vector<torch::Tensor>& biases, bool relu = false);
  // The packed product that `linear` without autograd would run for an input
  // on the CPU right now (the weights refreshed as it refreshes them), or
  // null where it would run ATen's: for callers that multiply raw rows
  // (inference/decoder_step.h).
  std::shared_ptr<const PackedLinear> packed(const std::vector<torch::Tensor>& weights,
                                             const std::vector<torch::Tensor>& biases);

 private:
  // What a call without autograd on `device` runs: `packed` where set, else
  // ATen's product of `weight` and `bias`.
  struct Choice {
    torch::Tensor weight, bias;
    std::shared_ptr<const PackedLinear> packed;
  };
  Choice choose(const std::vector<torch::Tensor>& weights, const std::vector<torch::Tensor>& biases,
                const c10::Device& device);
  void release();
  void refresh(const std::vector<torch::Tensor>& weights, const std::vector<torch::Tensor>& biases,
               c10::ScalarType dtype, const c10::Device& device);

  std::mutex mutex_;  // guards what follows
  torch::Tensor weight_, bias_;  // ATen's product: off the CPU (or where nothing is packed)
  std::shared_ptr<const PackedLinear> packed_;  // on the CPU: fp32, bf16 and int8
  std::vector<std::pair<const void*, uint32_t>> sources_;  // data and version of each parameter
  c10::ScalarType dtype_ = c10::ScalarType::Float;
  c10::Device device_ = c10::kCPU;
};

}  // namespace nmt::kernels
