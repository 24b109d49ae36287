// int8 products of a decoding step's few rows with AVX-512 VNNI, without
// oneDNN: the int32 sums of rows quantized per row (kernels/int8_rows.h)
// against weights quantized per output.
//
// At batch 1 an int8 step reads a quarter of fp32's weight bytes: the sample
// recipe's whole decoder (0.8 MB) stays in the L2 cache from step to step,
// where fp32's 3.3 MB streams from L3. oneDNN's int8 product then costs more
// in its call than in its arithmetic (a primitive per row count, argument
// maps, a scratchpad, and its OpenMP team woken for one row: on the 2-core
// Zen 5 int8 greedy batch 1 ran at 4,140 target tokens/s on two threads
// against fp32's 7,154). This kernel needs one pass over the packed weights
// per group of rows and runs on the calling thread unless a product is large
// enough to pay for a second (docs/performance.md, step_products_bench).
//
// Layout: the outputs in blocks of 64, each block the weights of its outputs
// four inputs at a time ([padded in / 4][64 outputs][4 inputs] bytes, inputs
// padded to a multiple of 4 with zeros), blocks one after another: at each
// group of four inputs one row's 64 sums take four `vpdpbusd`. That
// instruction multiplies unsigned by signed bytes, so a row's int8 values q
// enter shifted, as the bytes q + 128, and 128 x (the output's weight sum) is
// taken off again: the sums are exact, the same integers as oneDNN's
// (tests/kernels_int8_step_product_test.cpp).
#pragma once

#include <cstdint>
#include <memory>

namespace nmt::kernels {

// A decoding step's rows at batch 1 at most (8 beams), the case this kernel
// was first written for. Beyond, it takes the rows in tiles of
// kInt8TileRows, and every int8 product of a CPU with VNNI runs here: the
// int8 weights are held once, in this layout, and not in oneDNN's too.
inline constexpr int64_t kInt8StepRows = 8;
inline constexpr int64_t kInt8TileRows = 128;

class Int8StepWeights {
 public:
  // True when this CPU has AVX-512 with VNNI (and BW): elsewhere oneDNN's
  // product serves every row count.
  static bool available();

  // weights [out, in] int8, row-major (as quantize_rows writes them).
  Int8StepWeights(const int8_t* weights, int64_t out, int64_t in);

  // Inputs of a row in the buffer `sums` reads: in rounded up to 8.
  int64_t padded_in() const { return padded_in_; }

  // Row q of int8 values (n of them) as `sums` reads it: q + 128 as
  // unsigned bytes, then 128 (a zero) up to padded_in() (what
  // quantize_rows_shifted writes from fp32 rows in one pass).
  void shift_row(const int8_t* q, uint8_t* shifted) const;

  // sums[r][o] = sum_k q[r][k] * w[o][k] for r < rows (any number), o <
  // out, from `shifted` [rows, padded_in()]: each row of q as shift_row
  // wrote it.
  void sums(const uint8_t* shifted, int64_t rows, int32_t* sums) const;

 private:
  int64_t in_ = 0, out_ = 0, padded_in_ = 0, blocks_ = 0;
  std::unique_ptr<int8_t[], void (*)(void*)> packed_;  // 64-byte aligned
  std::unique_ptr<int32_t[]> offsets_;  // [blocks x 64]: 128 x each output's weight sum
};

}  // namespace nmt::kernels
