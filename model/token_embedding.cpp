#include "model/token_embedding.h"

#include <torch/torch.h>

namespace nmt::model {

TokenEmbeddingImpl::TokenEmbeddingImpl(int64_t vocab_size, int64_t d_model, int64_t padding_idx)
    : padding_idx_(padding_idx) {
  TORCH_CHECK(padding_idx >= 0 && padding_idx < vocab_size, "padding_idx ", padding_idx,
              " outside a vocabulary of ", vocab_size);
  auto init = torch::randn({vocab_size, d_model});
  init[padding_idx].zero_();
  weight = register_parameter("weight", init);
}

torch::Tensor TokenEmbeddingImpl::forward(const torch::Tensor& ids) {
  // [batch, len] -> [batch, len, d_model]
  return torch::embedding(weight, ids, padding_idx_);
}

}  // namespace nmt::model
