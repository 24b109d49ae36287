#include "kernels/int8_step_product.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <c10/util/Exception.h>

#include "kernels/step_team.h"
#include "kernels/vector_isa.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define NMT_INT8_VNNI 1
#define NMT_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#else
#define NMT_INT8_VNNI 0
#endif

namespace nmt::kernels {
namespace {

constexpr int64_t kVnniBlock = 64;        // outputs a block: four vectors of 16 int32 sums
constexpr int64_t kVnniQuad = 4;          // inputs a vpdpbusd sums per output
constexpr int64_t kVnniStep = kVnniBlock * kVnniQuad;  // bytes of a block at one group of four inputs
// Rows a group takes at most: 6 rows x 4 vectors of sums and a block's 4
// vectors of weights (28 of the 32 registers).
constexpr int64_t kVnniGroupRows = 6;
// Groups of four inputs ahead whose weights the first group of rows asks for.
constexpr int64_t kVnniAhead = 16;

void* aligned_bytes(size_t n) {
  void* p = std::aligned_alloc(64, std::max<size_t>(64, (n + 63) / 64 * 64));
  TORCH_CHECK(p != nullptr, "out of memory for ", n, " bytes of int8 weights");
  return p;
}

#if NMT_INT8_VNNI

// Block b's sums of R rows: its weights read once, four inputs at a time.
// One or two rows alternate two sets of sums between even and odd groups of
// inputs, so that consecutive vpdpbusd do not wait on each other.
template <int R>
NMT_VNNI_TARGET inline void vnni_group_block(const uint8_t* u, int64_t padded_in, const int8_t* block,
                                             const int32_t* offsets, int64_t out, int64_t first_output,
                                             bool prefetch, int32_t* sums) {
  constexpr int kSets = R <= 2 ? 2 : 1;
  const int64_t quads = padded_in / kVnniQuad;  // even: padded_in is a multiple of 8
  __m512i acc[kSets][R][4];
  for (int s = 0; s < kSets; ++s) {
    for (int r = 0; r < R; ++r) {
      for (int v = 0; v < 4; ++v) acc[s][r][v] = _mm512_setzero_si512();
    }
  }
  for (int64_t k = 0; k < quads; k += 2) {
    for (int half = 0; half < 2; ++half) {
      const int8_t* w = block + (k + half) * kVnniStep;
      if (prefetch) {
        for (int v = 0; v < 4; ++v) {
          _mm_prefetch(reinterpret_cast<const char*>(w + kVnniAhead * kVnniStep + v * 64), _MM_HINT_T0);
        }
      }
      __m512i weights[4];
      for (int v = 0; v < 4; ++v) weights[v] = _mm512_load_si512(w + v * 64);
      const int s = kSets == 2 ? half : 0;
      for (int r = 0; r < R; ++r) {
        int32_t four;
        std::memcpy(&four, u + r * padded_in + (k + half) * kVnniQuad, sizeof four);
        const __m512i x = _mm512_set1_epi32(four);
        for (int v = 0; v < 4; ++v) acc[s][r][v] = _mm512_dpbusd_epi32(acc[s][r][v], x, weights[v]);
      }
    }
  }
  for (int v = 0; v < 4; ++v) {
    const int64_t o = first_output + v * 16;
    if (o >= out) break;
    const __m512i offset = _mm512_load_si512(offsets + o);
    const __mmask16 mask = o + 16 <= out ? static_cast<__mmask16>(0xFFFF)
                                         : static_cast<__mmask16>((1u << (out - o)) - 1);
    for (int r = 0; r < R; ++r) {
      __m512i total = acc[0][r][v];
      if constexpr (kSets == 2) total = _mm512_add_epi32(total, acc[1][r][v]);
      _mm512_mask_storeu_epi32(sums + r * out + o, mask, _mm512_sub_epi32(total, offset));
    }
  }
}

template <int R>
NMT_VNNI_TARGET inline void vnni_group_of(int64_t rows, const uint8_t* u, int64_t padded_in, const int8_t* block,
                                     const int32_t* offsets, int64_t out, int64_t first_output, bool prefetch,
                                     int32_t* sums) {
  if constexpr (R > 1) {
    if (rows < R) return vnni_group_of<R - 1>(rows, u, padded_in, block, offsets, out, first_output, prefetch, sums);
  }
  vnni_group_block<R>(u, padded_in, block, offsets, out, first_output, prefetch, sums);
}

// Blocks [first, last) for every row, the rows in groups as even as they come;
// the first group of a block asks for its weights ahead.
NMT_VNNI_TARGET void vnni_sum_blocks(const uint8_t* u, int64_t rows, int64_t padded_in, const int8_t* packed,
                                const int32_t* offsets, int64_t out, int64_t first, int64_t last, int32_t* sums) {
  const int64_t groups = (rows + kVnniGroupRows - 1) / kVnniGroupRows;
  for (int64_t b = first; b < last; ++b) {
    const int8_t* block = packed + b * padded_in * kVnniBlock;
    int64_t row = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = rows / groups + (g < rows % groups ? 1 : 0);
      vnni_group_of<kVnniGroupRows>(n, u + row * padded_in, padded_in, block, offsets, out, b * kVnniBlock, g == 0,
                           sums + row * out);
      row += n;
    }
  }
}

#endif  // NMT_INT8_VNNI

}  // namespace

bool Int8StepWeights::available() {
#if NMT_INT8_VNNI
  static const bool vnni = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512vnni") && cpu_vector_isa() == VectorIsa::kAvx512;
  return vnni;
#else
  return false;
#endif
}

Int8StepWeights::Int8StepWeights(const int8_t* weights, int64_t out, int64_t in)
    : in_(in),
      out_(out),
      padded_in_((in + 2 * kVnniQuad - 1) / (2 * kVnniQuad) * (2 * kVnniQuad)),
      blocks_((out + kVnniBlock - 1) / kVnniBlock),
      packed_(nullptr, std::free) {
  TORCH_CHECK(in > 0 && out > 0, "an int8 step product needs inputs and outputs, not ", in, " x ", out);
  const int64_t bytes = blocks_ * padded_in_ * kVnniBlock;
  packed_.reset(static_cast<int8_t*>(aligned_bytes(static_cast<size_t>(bytes))));
  std::memset(packed_.get(), 0, static_cast<size_t>(bytes));
  offsets_.reset(static_cast<int32_t*>(aligned_bytes(static_cast<size_t>(blocks_ * kVnniBlock) * sizeof(int32_t))));
  for (int64_t o = 0; o < blocks_ * kVnniBlock; ++o) {
    int32_t sum = 0;
    for (int64_t k = 0; o < out && k < in; ++k) {
      const int8_t w = weights[o * in + k];
      sum += w;
      // Block o / 64, group of inputs k / 4, output o % 64, input k % 4.
      packed_[(o / kVnniBlock) * padded_in_ * kVnniBlock + (k / kVnniQuad) * kVnniStep + (o % kVnniBlock) * kVnniQuad + k % kVnniQuad] = w;
    }
    offsets_[o] = 128 * sum;
  }
}

void Int8StepWeights::shift_row(const int8_t* q, uint8_t* shifted) const {
  for (int64_t k = 0; k < in_; ++k) shifted[k] = static_cast<uint8_t>(static_cast<uint8_t>(q[k]) ^ 0x80u);
  std::fill(shifted + in_, shifted + padded_in_, uint8_t{0x80});
}

void Int8StepWeights::sums(const uint8_t* shifted, int64_t rows, int32_t* sums) const {
  TORCH_CHECK(available(), "this CPU has no AVX-512 VNNI for the int8 step product");
  TORCH_CHECK(rows >= 0, "the int8 step product of ", rows, " rows");
#if NMT_INT8_VNNI
  if (rows == 0) return;
  // Task i: block i % blocks of the outputs of row tile i / blocks. At a
  // step's few rows a block of 64 outputs costs about padded_in / 4 x rows
  // vpdpbusd pairs (~1 ns each), and a task of under ~16 us is not worth
  // waking a thread for; beyond, every task may go to its own thread, as
  // fp32's do (at beam 4 x 32, 128 rows, the sample model's products of two
  // blocks had stayed on one thread: 15-30% slower than oneDNN's).
  const int64_t tiles = (rows + kInt8TileRows - 1) / kInt8TileRows;
  const int64_t task_cost = padded_in_ / kVnniQuad * std::max<int64_t>(rows, 4);
  const int64_t grain = rows > kInt8StepRows ? 1 : std::max<int64_t>(1, (int64_t{1} << 14) / task_cost);
  parallel_range(0, tiles * blocks_, grain, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t row = i / blocks_ * kInt8TileRows, b = i % blocks_;
      vnni_sum_blocks(shifted + row * padded_in_, std::min(kInt8TileRows, rows - row), padded_in_, packed_.get(),
                      offsets_.get(), out_, b, b + 1, sums + row * out_);
    }
  });
#endif
}

}  // namespace nmt::kernels
