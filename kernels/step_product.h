// fp32 products of a decoding step's rows (a row a sentence and beam: up to
// 128 at a batch of 32 sentences of 4 beams) on the weights oneDNN packed
// for its own product, without oneDNN.
//
// At a few rows (batch 1: one row, or one a beam) such a product reads every
// weight once for a handful of multiplications each: its speed is the speed
// the weights stream from memory, and oneDNN's product streamed a d256
// step's 19.2 MB at ~50 GB/s on one core where a plain read of 20 MB runs at
// ~73 GB/s (the 2-core Zen 5). At 5-32 rows oneDNN's fp32 product reached
// 110-170 GFLOP/s of the core's ~200. This kernel walks the packed blocks
// in their memory order, each block's weights read from memory once (asked
// for ahead of use) and then from the cache for every group of up to 6 rows
// (6 rows x 64 outputs of sums and a block's 64 weights at an input fill
// AVX-512's registers), and needs no oneDNN call (~1 us each).
// step_products_bench --threads 1, a d256 step's 19 products, best of three
// alternated runs each: 0.34 ms against oneDNN's 0.49 at 5 rows, 0.57
// against 0.69 at 8, 0.90 against 1.06 at 16, 1.73 against 1.89 at 32,
// 6.9 against 7.1 at 128 (10.8 against 10.4 at 192: beyond 128 oneDNN's).
//
// The layout is the one oneDNN 2.6 chooses for fp32 products on AVX-512
// CPUs ("BA16a64b"): blocks of 64 outputs, each block the weights of its
// outputs for every input, input by input ([padded in][64] floats, inputs
// padded to a multiple of 16 with zeros), blocks one after another.
// PackedLinear checks that oneDNN chose it before calling here. Each output
// is summed input by input with fused multiply-adds, then the bias added, as
// oneDNN's kernel does: the same bits as its product of the same rows among
// more (tests/kernels_step_product_test.cpp).
#pragma once

#include <cstdint>

namespace nmt::kernels {

// Rows up to this many take this product (beyond, oneDNN's is as fast).
inline constexpr int64_t kStepRows = 128;

struct PackedFp32Weights {
  const float* data = nullptr;  // [out / 64 blocks, rounded up][padded_in][64]
  int64_t in = 0, out = 0, padded_in = 0;
  static constexpr int64_t kBlock = 64;  // outputs a block
};

// out[r, :] = x[r, :] . weights (+ bias) (then relu) for rows r < rows
// (rows <= kStepRows); x [rows, in] and out [rows, out] contiguous; bias
// [out] or null. Splits the blocks over ATen's threads.
void step_product(const float* x, int64_t rows, const PackedFp32Weights& weights, const float* bias, bool relu,
                  float* out);

}  // namespace nmt::kernels
