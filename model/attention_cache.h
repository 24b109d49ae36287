// Keys and values kept between decoding steps (incremental decoding).
#pragma once

#include <vector>

#include <torch/types.h>

namespace nmt::model {

// Projected, head-split keys and values of a fixed memory (the encoder
// output): [memory rows, head, len, d_head]. The decoder rows that attend to
// it come in equal groups, one group per memory row (a sentence's beams), so
// the beams share their sentence's keys and values instead of copies.
struct AttentionCache {
  torch::Tensor k, v;
  bool empty() const { return !k.defined(); }
};

// Self-attention keys and values of the positions decoded so far, stored
// time-major ([capacity, rows, head, d_head], positions [0, length) filled)
// with room to grow: a step writes its position in place instead of
// concatenating a new copy of the whole cache, and reordering rows copies the
// filled part once.
class GrowingAttentionCache {
 public:
  bool empty() const { return length_ == 0; }
  int64_t length() const { return length_; }
  // k, v [rows, head, new, d_head] become positions [length, length + new).
  void append(const torch::Tensor& k, const torch::Tensor& v);
  // [rows, head, length, d_head] views of the filled positions.
  torch::Tensor keys() const;
  torch::Tensor values() const;
  // Keeps rows `index` ([new_rows] int64 on the cache's device) in that order.
  void select_rows(const torch::Tensor& index);

 private:
  torch::Tensor k_, v_;  // [capacity, rows, head, d_head]
  int64_t length_ = 0;
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

}  // namespace nmt::model
