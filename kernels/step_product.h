// fp32 products of inference on weights packed in blocks of 64 outputs,
// without oneDNN or a BLAS; first written for a decoding step's rows (a row a
// sentence and beam: up to 128 at a batch of 32 sentences of 4 beams).
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
// Beyond a step's rows (an encoder's batch, a scored target's positions)
// the rows go in tiles of 128: every product of inference in fp32 runs here,
// so that a row's result is the same bits whatever rows share its batch and
// however many threads run (oneDNN's and OpenBLAS's products choose kernels
// and splits by the row count: on a 2-core AMD EPYC a sentence alone and
// padded in a batch gave different bits through OpenBLAS at 2 threads).
//
// The layout ("BA16a64b", the one oneDNN 2.6 chooses for fp32 products on
// AVX-512 CPUs, made here by pack_fp32_weights on every CPU): blocks of 64
// outputs, each block the weights of its outputs for every input, input by
// input ([padded in][64] floats, inputs padded to a multiple of 16 with
// zeros), blocks one after another. Each output is summed input by input
// with fused multiply-adds where the CPU has them, then the bias added, as
// oneDNN's kernel does (tests/kernels_step_product_test.cpp).
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace nmt::kernels {

struct PackedFp32Weights {
  const float* data = nullptr;  // [out / 64 blocks, rounded up][padded_in][64]
  int64_t in = 0, out = 0, padded_in = 0;
  static constexpr int64_t kBlock = 64;  // outputs a block
};

// weight [out, in] (any floating dtype) in that layout: [blocks, padded_in, 64] fp32.
torch::Tensor pack_fp32_weights(const torch::Tensor& weight);
// The weights pack_fp32_weights made, as step_product reads them.
PackedFp32Weights packed_fp32_view(const torch::Tensor& packed, int64_t in, int64_t out);

// out[r, :] = x[r, :] . weights (+ bias) (then relu) for rows r < rows
// (any number); x [rows, in] and out [rows, out] contiguous; bias [out] or
// null. Splits blocks of outputs (and tiles of 128 rows) over ATen's
// threads, or a step team's (kernels/step_team.h).
void step_product(const float* x, int64_t rows, const PackedFp32Weights& weights, const float* bias, bool relu,
                  float* out);

}  // namespace nmt::kernels
