// Keys and values kept between decoding steps (incremental decoding).
#pragma once

#include <vector>

#include <torch/types.h>

namespace nmt::model {

// Projected, head-split keys and values: [batch, head, len, d_head].
struct AttentionCache {
  torch::Tensor k, v;
  bool empty() const { return !k.defined(); }
};

struct DecoderLayerCache {
  AttentionCache self_attention;  // grows by one position per step
  AttentionCache enc_dec;         // computed once from the encoder output
};

struct DecoderCache {
  std::vector<DecoderLayerCache> layers;
  int64_t length = 0;  // target positions already decoded

  // Keeps the rows `index` (beam reordering / dropping finished sentences).
  void select_rows(const torch::Tensor& index);
};

}  // namespace nmt::model
