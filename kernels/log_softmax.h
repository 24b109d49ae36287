// Log-softmax over the rows of a decoding step's scores, in place. ATen's
// log_softmax in Debian's LibTorch 1.13 (AVX2 kernels) runs one row at a time
// on one thread, ~2 ns a value here: 2.3 ms for a beam-4 x 32 step's
// [128, 8000] logits, more than the step's attention. This pass (AVX-512 or
// AVX2 chosen at run time, scalar elsewhere) takes each row's maximum, sums
// exp(x - max) with a polynomial exp, and subtracts the log of that, rows
// split over ATen's threads.
#pragma once

#include <cstdint>

#include <torch/types.h>

#include "kernels/vector_isa.h"

namespace nmt::kernels {

// scores [rows, columns] float, contiguous, on the CPU: each row becomes its
// log-softmax (x - max - log(sum(exp(x - max)))). Within ~1e-6 of ATen's
// log_softmax on finite rows; -inf entries stay -inf (probability 0).
void log_softmax_rows_(torch::Tensor& scores, VectorIsa isa = cpu_vector_isa());

// log(sum(exp(x[i]))) of one row of n floats (n > 0), the same arithmetic as
// log_softmax_rows_ (-inf when every entry is -inf).
float log_sum_exp(const float* x, int64_t n, VectorIsa isa = cpu_vector_isa());

}  // namespace nmt::kernels
