// Batched matrix product for attention: [B, H, m, k] @ [B, H, k, n].
//
// LibTorch 1.13 without MKL runs an fp32 CPU bmm as a loop of select + addmm
// per matrix, ~6 dispatcher calls each: with ~700 small matrices per call
// (batch x heads), that loop took a third of an fp32 training step
// (bench/train_speed_bench --profile). Here the loop calls the BLAS's
// cblas_sgemm directly on strided views (no copies of the split heads), with
// the gradient computed the same way. bf16 (under autocast), other devices and
// BLAS libraries without cblas_sgemm go through torch::matmul.
#pragma once

#include <torch/types.h>

namespace nmt::kernels {

// a [B, H, m, k], b [B, H, k, n] -> [B, H, m, n]
torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b);

// Whether the BLAS in use exports cblas_sgemm (else everything goes through torch::matmul).
bool batched_matmul_uses_blas();

}  // namespace nmt::kernels
