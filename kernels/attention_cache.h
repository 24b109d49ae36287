// Keys and values kept between decoding steps (incremental decoding).
#pragma once

#include <vector>

#include <torch/types.h>

#include "kernels/step_attention.h"

namespace nmt::kernels {

// Projected, head-split keys and values of a fixed memory (the encoder
// output): [memory rows, head, len, d_head]. The decoder rows that attend to
// it come in equal groups, one group per memory row (a sentence's beams), so
// the beams share their sentence's keys and values instead of copies.
struct AttentionCache {
  torch::Tensor k, v;
  // When defined ([query rows, len] fp32): each call adds the attention
  // weights of its last query position, averaged over heads, so that it holds
  // the attention mass each memory position has had over the steps so far
  // (decode/coverage_check.h). Follows the query rows through
  // DecoderCache::select_target_rows.
  torch::Tensor coverage;
  bool empty() const { return !k.defined(); }
  // Where step_attention finds them for query rows in groups of `group` per
  // memory row; mask [memory rows, 1, 1, len] (or undefined) hides padding.
  StepMemory step_memory(int64_t group, const torch::Tensor& mask) const;
};

// Self-attention keys and values of the positions decoded so far, stored
// row-major ([row capacity, capacity, head, d_head]) with room to grow: a step
// writes its position in place instead of concatenating a new copy of the
// whole cache. Slot (r, p) keeps row r as it was at step p; when rows are
// reordered (beams changing parents, sentences leaving), nothing moves: a
// table records which row's slot p each current row descends from. A row's
// positions lie side by side, so that attention reads them in runs (one run
// per ancestor) rather than one row-capacity stride apart (step attention
// over the recipe's caches of 128 rows ran ~5% faster so).
class GrowingAttentionCache {
 public:
  bool empty() const { return length_ == 0; }
  int64_t length() const { return length_; }
  int64_t rows() const { return rows_; }
  // k, v [rows, head, new, d_head] become positions [length, length + new).
  void append(const torch::Tensor& k, const torch::Tensor& v);
  // One position from a step's stacked projection qkv [rows, 1, 3 x d_model]
  // (contiguous, on the CPU): its keys and values ([d, 2d) and [2d, 3d) of
  // each row, `heads` heads) copied straight into their slot, without the
  // head-split views and permuted copies append() takes.
  void append_step(const torch::Tensor& qkv, int64_t heads);
  // The same from raw fp32 rows qkv [rows, 3 x d_model], into an empty cache
  // or one that holds fp32 positions (a decoding step's fused path).
  void append_step(const float* qkv, int64_t rows, int64_t d_model, int64_t heads);
  // [rows, head, length, d_head]: the current rows' keys and values, gathered
  // (a copy) for the general attention path.
  torch::Tensor keys() const;
  torch::Tensor values() const;
  // Keeps rows `index` ([new_rows] int64, any device) in that order.
  void select_rows(const torch::Tensor& index);
  // Where step_attention finds them, without gathering (CPU).
  StepMemory step_memory() const;

 private:
  void reserve(int64_t length, int64_t rows);
  // Each row's key and value parts (`part_bytes` each) of `from` [rows][q, k, v] into slot length_.
  void append_step_rows(const char* from, int64_t rows, int64_t part_bytes);
  torch::Tensor gathered(const torch::Tensor& buffer) const;

  torch::Tensor k_, v_;             // [row capacity, capacity, head, d_head]
  std::vector<int64_t> ancestry_;  // [length][rows]: the row of slot p that current row r descends from
  int64_t length_ = 0, rows_ = 0;
};

struct DecoderLayerCache {
  GrowingAttentionCache self_attention;  // grows by one position per step
  AttentionCache enc_dec;                // computed once from the encoder output
};

struct DecoderCache {
  std::vector<DecoderLayerCache> layers;

  // Target positions already decoded.
  int64_t length() const { return layers.empty() ? 0 : layers.front().self_attention.length(); }

  // Keeps decoder rows `index` (beam reordering / dropping finished sentences):
  // the self-attention caches only.
  void select_target_rows(const torch::Tensor& index);
  // Keeps memory rows `index` (sentences dropped from the batch): the
  // cross-attention caches only.
  void select_memory_rows(const torch::Tensor& index);
};

}  // namespace nmt::kernels
