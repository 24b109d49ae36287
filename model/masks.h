// Attention masks, built as the reference builds them (1 = visible, 0 = hidden).
#pragma once

#include <torch/types.h>

namespace nmt::model {

// (src != pad) shaped [batch, 1, 1, src_len].
torch::Tensor make_src_mask(const torch::Tensor& src, int64_t pad_idx);

// (trg != pad) shaped [batch, 1, trg_len, 1] AND lower-triangular [trg_len, trg_len]
// -> [batch, 1, trg_len, trg_len]. Note that the reference's padding mask hides
// padded query rows, not padded keys; causality already hides later keys.
torch::Tensor make_trg_mask(const torch::Tensor& trg, int64_t pad_idx);

// Lower-triangular [len, len] boolean mask.
torch::Tensor causal_mask(int64_t len, const torch::Device& device);

}  // namespace nmt::model
