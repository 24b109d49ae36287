// The residual's end for inference on the CPU, one pass per row: post-norm's
// LayerNorm(a + b), LayerNorm(a) alone (pre-norm's sublayer input) and
// pre-norm's a + b. ATen runs LayerNorm(a + b) as an addition and a
// layer_norm: two operators, four allocations (the sum, the output, the mean
// and the inverse deviation it keeps for a backward pass that never comes),
// twice per encoder layer and three times per decoder layer, at every
// decoding step.
#pragma once

#include <torch/types.h>

namespace nmt::kernels {

// Whether layer_norm_of_sum serves these: CPU tensors, a in fp32 or bf16,
// b (or undefined: none) and the parameters in fp32, a and b of one shape,
// nothing that needs a gradient.
bool layer_norm_of_sum_supported(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& gamma);

// [..., d] -> [..., d] fp32: gamma * (s - mean) / sqrt(var + eps) + beta of
// each row of s = a + b, or of s = a when b is undefined (a's bf16 widened
// to fp32 first, as ATen's addition promotes), with the biased variance, computed in fp32 in two passes (mean,
// then squared deviations).
torch::Tensor layer_norm_of_sum(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& gamma,
                                const torch::Tensor& beta, double eps);

// x + y, the pre-norm residual's end: in one vectorized pass on the CPU when
// nothing needs a gradient, x is fp32 and y fp32 or bf16 of x's shape (under
// bf16, ATen's addition first copies y to fp32: three operators and an
// allocation more, three times per decoder layer and step); else ATen's.
// Bit-equal to ATen's either way (bf16 widens exactly; one fp32 rounding).
torch::Tensor add_residual(const torch::Tensor& x, const torch::Tensor& y);

// The same passes on raw fp32 rows, on the calling thread (a decoding step's
// few rows, inference/decoder_step.h): out [rows, d] = the layer norm of
// a + b (b null: of a); and out [n] = x + y. The same bits as the tensor forms.
void layer_norm_rows(const float* a, const float* b, int64_t rows, int64_t d, const float* gamma, const float* beta,
                     float eps, float* out);
void add_rows(const float* x, const float* y, int64_t n, float* out);

}  // namespace nmt::kernels
