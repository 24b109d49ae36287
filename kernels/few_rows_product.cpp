#include "kernels/few_rows_product.h"

#include <algorithm>
#include <cstring>

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include "kernels/vector_lanes.h"

namespace nmt::kernels {
namespace {

constexpr int64_t kOutputBlock = PackedFp32Weights::kBlock;
constexpr int kBlockVectors = static_cast<int>(kOutputBlock / kLanes);  // a block's outputs, in vectors

// Inputs ahead whose weights are asked for (12 KiB: of 16, 48 and 128, the
// fastest).
constexpr int64_t kAhead = 48;

// Blocks [first, last) of the outputs of R rows: each block's weights are
// read once, input by input, for every row.
template <int R>
NMT_INLINE void row_blocks(const float* x, const PackedFp32Weights& w, const float* bias, bool relu, float* out,
                           int64_t first, int64_t last) {
  const int64_t in = w.in;
  for (int64_t b = first; b < last; ++b) {
    const float* block = w.data + b * w.padded_in * kOutputBlock;
    Lanes sums[R][kBlockVectors] = {};
    for (int64_t k = 0; k < in; ++k) {
      const float* ahead = block + (k + kAhead) * kOutputBlock;
      for (int v = 0; v < kBlockVectors; ++v) __builtin_prefetch(ahead + v * kLanes);
      Lanes weights[kBlockVectors];
      for (int v = 0; v < kBlockVectors; ++v) weights[v] = load(block + k * kOutputBlock + v * kLanes);
      for (int r = 0; r < R; ++r) {
        const float xk = x[r * in + k];
        for (int v = 0; v < kBlockVectors; ++v) sums[r][v] += xk * weights[v];
      }
    }
    for (int v = 0; v < kBlockVectors; ++v) {
      const int64_t o = b * kOutputBlock + v * kLanes;  // the vector's first output
      if (o >= w.out) break;
      const auto n = static_cast<size_t>(std::min<int64_t>(kLanes, w.out - o)) * sizeof(float);
      Lanes added = {};
      if (bias) std::memcpy(&added, bias + o, n);
      for (int r = 0; r < R; ++r) {
        Lanes y = sums[r][v] + added;
        if (relu) y = y > 0.0f ? y : Lanes{};
        std::memcpy(out + r * w.out + o, &y, n);
      }
    }
  }
}

NMT_VECTOR_CLONES void product_blocks(const float* x, int64_t rows, const PackedFp32Weights& w, const float* bias,
                                      bool relu, float* out, int64_t first, int64_t last) {
  switch (rows) {
    case 1:
      return row_blocks<1>(x, w, bias, relu, out, first, last);
    case 2:
      return row_blocks<2>(x, w, bias, relu, out, first, last);
    case 3:
      return row_blocks<3>(x, w, bias, relu, out, first, last);
    default:
      return row_blocks<4>(x, w, bias, relu, out, first, last);
  }
}

}  // namespace

void few_rows_product(const float* x, int64_t rows, const PackedFp32Weights& weights, const float* bias, bool relu,
                      float* out) {
  TORCH_CHECK(rows >= 1 && rows <= kFewRows, "few_rows_product takes 1 to ", kFewRows, " rows, not ", rows);
  TORCH_CHECK(weights.padded_in >= weights.in && weights.padded_in % 16 == 0, "few_rows_product: ", weights.in,
              " inputs padded to ", weights.padded_in);
  const int64_t blocks = (weights.out + kOutputBlock - 1) / kOutputBlock;
  // A block of 256 inputs is 64 KiB: ~1 us to stream; a task of fewer is
  // not worth waking a thread for.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 20) / (weights.padded_in * kOutputBlock * 4));
  at::parallel_for(0, blocks, grain, [&](int64_t first, int64_t last) {
    product_blocks(x, rows, weights, bias, relu, out, first, last);
  });
}

}  // namespace nmt::kernels
