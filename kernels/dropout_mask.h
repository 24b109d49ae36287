// Dropout's mask on the CPU from a counter-based hash, in parallel: LibTorch
// 1.13's CPU bernoulli_ draws every element from the global generator one at
// a time, serially (7% of an fp32 and 23% of a bf16 training step measured
// with bench/train_speed_bench --profile). model::Dropout applies it through
// apply_dropout.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace nmt::kernels {

// The mask dropout multiplies by: 0 or 1 / (1 - p) per element, x's shape and
// dtype, CPU. Element i depends only on (seed, i).
torch::Tensor dropout_mask(const torch::Tensor& like, double p, uint64_t seed);

// x * dropout_mask(x, p, seed) (the same values), differentiable, in one pass
// without the mask in memory: the backward pass draws it again from the seed
// (one more hash per element, instead of a mask of x's size held from
// forward to backward: about 240 MiB a step in the Multi30k recipe).
torch::Tensor apply_dropout(const torch::Tensor& x, double p, uint64_t seed);

}  // namespace nmt::kernels
