// The best candidates of a search step: the k largest of scores[r][v] +
// offsets[r] over each group of rows (a sentence's beams), without building
// that sum. ATen's topk in Debian's LibTorch 1.13 takes ~100 us for one
// sentence's 4 x 8000 values at beam 4 and runs one row per thread; this pass
// compares 16 (AVX-512) or 8 (AVX2) values at a time with the k-th best so far
// and keeps the few that pass in a sorted list, sentences split over ATen's
// threads.
#pragma once

#include <cstdint>

#include <torch/types.h>

#include "kernels/vector_isa.h"

namespace nmt::kernels {

struct TopK {
  torch::Tensor values;   // [groups, k] float, best first
  torch::Tensor indices;  // [groups, k] int64 into the group's width x columns values (row-major)
};

// scores [rows, columns] float, contiguous, on the CPU; offsets [rows] float
// (undefined: none); rows a multiple of `width`; 1 <= k <= width x columns.
// Each value is computed as the float sum scores[r][v] + offsets[r]. Equal
// values keep their order (the lower index first). Where fewer than k values
// exceed -inf, the rest are -inf with index 0; NaN is never picked.
TopK top_k_per_group(const torch::Tensor& scores, const torch::Tensor& offsets, int64_t width, int64_t k,
                     VectorIsa isa = cpu_vector_isa());

}  // namespace nmt::kernels
