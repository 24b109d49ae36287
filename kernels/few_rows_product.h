// fp32 products of a few rows (a decoding step at batch 1: one row, or one
// per beam) on the weights oneDNN packed for its own product.
//
// Such a product reads every weight once for a handful of multiplications
// each: its speed is the speed the weights stream from memory. oneDNN's
// product on packed weights streamed a d256 step's 19.2 MB at ~50 GB/s on
// one core where a plain read of 20 MB runs at ~73 GB/s (the 2-core Zen 5);
// this kernel walks the packed blocks in their memory order, prefetching
// ahead, each weight loaded once for every row, and needs no oneDNN call
// (~1 us each). step_products_bench --threads 1, a d256 step's products:
// 0.30-0.32 ms against oneDNN's 0.35 at 1 row, 0.36-0.39 against 0.43 at
// 4; decode_bench, d256, two batches of 1 sentence at once in fp32: greedy
// 3,089-3,275 target tokens/s against 2,897-3,093, beam 4 2,415-2,520
// against 2,159-2,322.
//
// The layout is the one oneDNN 2.6 chooses for fp32 products on AVX-512
// CPUs ("BA16a64b"): blocks of 64 outputs, each block the weights of its
// outputs for every input, input by input ([padded in][64] floats, inputs
// padded to a multiple of 16 with zeros), blocks one after another.
// PackedLinear checks that oneDNN chose it before calling here. Each output
// is summed input by input with fused multiply-adds, then the bias added, as
// oneDNN's kernel does: the same bits as its product of the same rows among
// more (tests/kernels_few_rows_product_test.cpp).
#pragma once

#include <cstdint>

namespace nmt::kernels {

// Rows up to this many take this product (beyond, oneDNN's kernels compute
// faster than the weights stream).
inline constexpr int64_t kFewRows = 4;

struct PackedFp32Weights {
  const float* data = nullptr;  // [out / 64 blocks, rounded up][padded_in][64]
  int64_t in = 0, out = 0, padded_in = 0;
  static constexpr int64_t kBlock = 64;  // outputs a block
};

// out[r, :] = x[r, :] . weights (+ bias) (then relu) for rows r < rows
// (rows <= kFewRows); x [rows, in] and out [rows, out] contiguous; bias
// [out] or null. Splits the blocks over ATen's threads.
void few_rows_product(const float* x, int64_t rows, const PackedFp32Weights& weights, const float* bias, bool relu,
                      float* out);

}  // namespace nmt::kernels
