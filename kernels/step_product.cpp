#include "kernels/step_product.h"

#include <algorithm>
#include <cstring>

#include <c10/util/Exception.h>
#include <torch/torch.h>

#include "kernels/step_team.h"
#include "kernels/vector_lanes.h"

namespace nmt::kernels {
namespace {

constexpr int64_t kOutputBlock = PackedFp32Weights::kBlock;

// Inputs ahead whose weights are asked for (12 KiB: of 16, 48 and 128, the
// fastest).
constexpr int64_t kAhead = 48;

// The kernel is written for vectors of W floats, the ISA's own width (a
// wider generic vector on AVX2 went through the stack: 13x slower), and
// groups of rows sized to its registers (product_block_body). AVX-512 (32
// registers of 16 floats): 6 rows of a whole block of 64 outputs, 24
// registers of sums and the block's 4 vectors of weights at an input (7 rows
// would fill the 32 and the compiler spills one). AVX2 (16 registers of 8
// floats) and plain x86-64 (16 of 4): 3 rows of 4 vectors, 12 registers of
// sums, a block in 2 or 4 parts. Each output is summed input by input in
// every shape, with fused multiply-adds where the ISA has them.
template <int W>
using Floats = typename Vec<W>::F;

// Vector v of R rows' sums plus the bias (then relu) into out (row r at
// r * stride): Bytes of them, or `bytes` where Bytes is 0 (the last outputs
// of a product whose outputs are not whole vectors). The partial vector is
// copied float by float: a memcpy of variable length is a call, across which
// no vector register survives, and GCC 12 then kept the one-row group's sums
// on the stack for the whole loop over the inputs (a store and a load around
// every multiply-add: the 2-core AMD EPYC's greedy batch-1 step ran its
// products at ~42 GB/s where the same loop without them streams ~85).
template <int W, int R, int V, size_t Bytes>
NMT_INLINE void finish_vector(const Floats<W> (&sums)[R][V], int v, const float* bias, bool relu, float* out,
                              int64_t stride, size_t bytes = Bytes) {
  Floats<W> added = {};
  const int n = static_cast<int>((Bytes ? Bytes : bytes) / sizeof(float));
  if (bias) {
    if (Bytes) {
      std::memcpy(&added, bias, Bytes);
    } else {
      for (int j = 0; j < n; ++j) added[j] = bias[j];
    }
  }
  for (int r = 0; r < R; ++r) {
    Floats<W> y = sums[r][v] + added;
    if (relu) y = y > 0.0f ? y : Floats<W>{};
    if (Bytes) {
      std::memcpy(out + r * stride, &y, Bytes);
    } else {
      for (int j = 0; j < n; ++j) out[r * stride + j] = y[j];
    }
  }
}

// Which weights a group of rows asks the cache for while it computes (see
// product_block).
enum class Prefetch { kThisBlock, kNextBlock, kNone };

// The V vectors of W floats from output `first` of block b, for R rows (a
// group of the rows): those weights read once, input by input, for every row
// of the group. `next` is the block this thread takes after this one (null:
// none): kThisBlock asks for the weights kAhead inputs ahead, running on
// into next's first inputs near the block's end; kNextBlock asks for next's
// weights input by input.
template <int W, int R, int V>
NMT_INLINE void group_block(const float* x, const PackedFp32Weights& w, const float* bias, bool relu, float* out,
                            int64_t b, int64_t first, const float* next, Prefetch prefetch) {
  constexpr int kLines = V * W / 16;  // 64-byte cache lines of a part at one input (at least one)
  const int64_t in = w.in;
  const float* block = w.data + b * w.padded_in * kOutputBlock + first;
  if (next) next += first;
  Floats<W> sums[R][V] = {};
  for (int64_t k = 0; k < in; ++k) {
    const float* weights_k = block + k * kOutputBlock;
    if (prefetch == Prefetch::kThisBlock) {
      const float* ahead = k + kAhead < in ? weights_k + kAhead * kOutputBlock
                           : next          ? next + (k + kAhead - in) * kOutputBlock
                                           : nullptr;
      if (ahead) {
        for (int l = 0; l < std::max(kLines, 1); ++l) __builtin_prefetch(ahead + l * 16);
      }
    } else if (prefetch == Prefetch::kNextBlock && next) {
      for (int l = 0; l < std::max(kLines, 1); ++l) __builtin_prefetch(next + k * kOutputBlock + l * 16, 0, 2);
    }
    Floats<W> weights[V];
    for (int v = 0; v < V; ++v) weights[v] = load_lanes<W>(weights_k + v * W);
    for (int r = 0; r < R; ++r) {
      const float xk = x[r * in + k];
      for (int v = 0; v < V; ++v) sums[r][v] += xk * weights[v];
    }
  }
  for (int v = 0; v < V; ++v) {
    const int64_t o = b * kOutputBlock + first + v * W;  // the vector's first output
    if (o >= w.out) break;
    if (o + W <= w.out) {
      finish_vector<W, R, V, W * sizeof(float)>(sums, v, bias ? bias + o : nullptr, relu, out + o, w.out);
    } else {
      finish_vector<W, R, V, 0>(sums, v, bias ? bias + o : nullptr, relu, out + o, w.out,
                                (w.out - o) * sizeof(float));
    }
  }
}

// group_block for a group of `rows` (1 to R) rows.
template <int W, int R, int V>
NMT_INLINE void group_of(int64_t rows, const float* x, const PackedFp32Weights& w, const float* bias, bool relu,
                         float* out, int64_t b, int64_t first, const float* next, Prefetch prefetch) {
  if constexpr (R > 1) {
    if (rows < R) return group_of<W, R - 1, V>(rows, x, w, bias, relu, out, b, first, next, prefetch);
  }
  group_block<W, R, V>(x, w, bias, relu, out, b, first, next, prefetch);
}

// Block b of the outputs of all rows, part by part (V vectors of W floats
// each), in groups of at most R rows as even as they come. The first group
// reads a part's weights from memory: it asks for them kAhead inputs ahead.
// The second reads them from the cache and asks for the next block's
// meanwhile, into the L2 cache (a block of 256 inputs is 64 KiB), so that
// the next block's first group finds them there; the others ask for nothing.
template <int W, int R, int V>
NMT_INLINE void block_in_parts(const float* x, int64_t rows, const PackedFp32Weights& w, const float* bias, bool relu,
                               float* out, int64_t b, const float* next) {
  const int64_t groups = (rows + R - 1) / R;
  for (int64_t first = 0; first < kOutputBlock; first += V * W) {
    int64_t row = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t n = rows / groups + (g < rows % groups ? 1 : 0);
      const Prefetch prefetch = g == 0 ? Prefetch::kThisBlock : g == 1 ? Prefetch::kNextBlock : Prefetch::kNone;
      group_of<W, R, V>(n, x + row * w.in, w, bias, relu, out + row * w.out, b, first, next, prefetch);
      row += n;
    }
  }
}

// Block b of the outputs of all rows, in the shape of the ISA in force.
NMT_INLINE void product_block_body(const float* x, int64_t rows, const PackedFp32Weights& w, const float* bias,
                                   bool relu, float* out, int64_t b, const float* next) {
  switch (cpu_vector_isa()) {
    case VectorIsa::kAvx512:
      return block_in_parts<16, 6, 4>(x, rows, w, bias, relu, out, b, next);
    case VectorIsa::kAvx2:
      return block_in_parts<8, 3, 4>(x, rows, w, bias, relu, out, b, next);
    default:
      return block_in_parts<4, 3, 4>(x, rows, w, bias, relu, out, b, next);
  }
}
NMT_VECTOR_DISPATCH(void, product_block,
                    (const float* x, int64_t rows, const PackedFp32Weights& w, const float* bias, bool relu,
                     float* out, int64_t b, const float* next),
                    (x, rows, w, bias, relu, out, b, next))

// Row tiles of this many rows (at 512 inputs, 256 KiB of inputs: they stay
// in the L2 cache while every block of the weights passes over them). A
// decoding step's rows (up to 128) are one tile.
constexpr int64_t kTileRows = 128;

// Tasks [first, last) of a product, task i being block i % blocks of the
// outputs of row tile i / blocks, one after another, each asking for the
// weights of the next block of its tile.
void product_tasks(const float* x, int64_t rows, const PackedFp32Weights& w, const float* bias, bool relu, float* out,
                   int64_t blocks, int64_t first, int64_t last) {
  const int64_t block_floats = w.padded_in * kOutputBlock;
  for (int64_t i = first; i < last; ++i) {
    const int64_t tile = i / blocks, b = i % blocks;
    const int64_t row = tile * kTileRows, n = std::min(kTileRows, rows - row);
    const bool next = b + 1 < blocks && i + 1 < last;
    product_block(x + row * w.in, n, w, bias, relu, out + row * w.out, b,
                  next ? w.data + (b + 1) * block_floats : nullptr);
  }
}

}  // namespace

torch::Tensor pack_fp32_weights(const torch::Tensor& weight) {
  TORCH_CHECK(weight.dim() == 2, "fp32 product weights are [out, in], got ", weight.sizes());
  const int64_t out = weight.size(0), in = weight.size(1), block = PackedFp32Weights::kBlock;
  const int64_t padded_in = (in + 15) / 16 * 16, blocks = (out + block - 1) / block;
  const auto w = weight.detach().to(torch::kCPU, torch::kFloat);
  // [out, in] -> zero-padded [blocks * 64, padded_in] -> [blocks, padded_in, 64]
  const auto padded = torch::constant_pad_nd(w, {0, padded_in - in, 0, blocks * block - out});
  return padded.view({blocks, block, padded_in}).transpose(1, 2).contiguous();
}

PackedFp32Weights packed_fp32_view(const torch::Tensor& packed, int64_t in, int64_t out) {
  TORCH_CHECK(packed.dim() == 3 && packed.size(2) == PackedFp32Weights::kBlock && packed.size(1) >= in &&
                  packed.size(0) * PackedFp32Weights::kBlock >= out && packed.is_contiguous() &&
                  packed.scalar_type() == torch::kFloat,
              "not fp32 product weights of ", in, " inputs and ", out, " outputs: ", packed.sizes());
  return PackedFp32Weights{packed.data_ptr<float>(), in, out, packed.size(1)};
}

void step_product(const float* x, int64_t rows, const PackedFp32Weights& weights, const float* bias, bool relu,
                  float* out) {
  TORCH_CHECK(rows >= 0, "step_product of ", rows, " rows");
  TORCH_CHECK(weights.padded_in >= weights.in && weights.padded_in % 16 == 0, "step_product: ", weights.in,
              " inputs padded to ", weights.padded_in);
  if (rows == 0) return;
  const int64_t blocks = (weights.out + kOutputBlock - 1) / kOutputBlock;
  const int64_t tasks = blocks * ((rows + kTileRows - 1) / kTileRows);
  // Every block may go to its own thread, even at one row: the blocks are
  // split the same way at every call, so each thread mostly reads the same
  // blocks of every product at every step and they stay in its own L2 cache
  // (the sample model's fp32 step, 3.3 MB, streams from L3 on one core;
  // halved, it fits two cores' 2 MB L2s; kernels/step_team.h). Greedy batch 1 on two threads, the sample
  // model in fp32 (2-core Intel Xeon with AMX): 4,480 target tokens/s
  // against 3,460 when products under ~16 us of streaming stayed on one
  // thread. Each output's sum is the same bits however the tasks are split
  // and whatever rows share its tile or group: a row's result never depends
  // on the batch it came in, nor on the thread count.
  parallel_range(0, tasks, 1, [&](int64_t first, int64_t last) {
    product_tasks(x, rows, weights, bias, relu, out, blocks, first, last);
  });
}

}  // namespace nmt::kernels
