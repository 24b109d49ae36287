// Dropout's mask on the CPU from a counter-based hash, in parallel: LibTorch
// 1.13's CPU bernoulli_ draws every element from the global generator one at
// a time, serially (7% of an fp32 and 23% of a bf16 training step measured
// with bench/train_speed_bench --profile). model::Dropout multiplies by it.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace nmt::kernels {

// The mask dropout multiplies by: 0 or 1 / (1 - p) per element, x's shape and
// dtype, CPU. Element i depends only on (seed, i).
torch::Tensor dropout_mask(const torch::Tensor& like, double p, uint64_t seed);

// x * dropout_mask(x, p, seed), differentiable, without keeping the mask for
// the backward pass: it is drawn again from the seed there (one more hash per
// element instead of 4 bytes per fp32 element held from forward to backward;
// a training step of the Multi30k recipe holds about 160 MiB of masks).
torch::Tensor apply_dropout(const torch::Tensor& x, double p, uint64_t seed);

}  // namespace nmt::kernels
