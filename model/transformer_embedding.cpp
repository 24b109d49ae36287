#include "model/transformer_embedding.h"

#include <cmath>

#include <torch/torch.h>

namespace nmt::model {

TransformerEmbeddingImpl::TransformerEmbeddingImpl(const EmbeddingOptions& o, TokenEmbedding shared)
    : scale_(o.scale ? std::sqrt(static_cast<double>(o.d_model)) : 1.0), zero_start_(o.zero_start) {
  tok_emb = register_module("tok_emb", shared ? shared : TokenEmbedding(o.vocab_size, o.d_model, o.padding_idx));
  pos_emb = register_module("pos_emb", PositionalEncoding(o.d_model, o.max_len, o.learned));
  drop_out = register_module("drop_out", Dropout(o.drop_prob));
}

torch::Tensor TransformerEmbeddingImpl::forward(const torch::Tensor& ids, int64_t offset) {
  // [batch, len] -> [batch, len, d_model]
  TORCH_CHECK(ids.dim() == 2, "embedding expects [batch, len] ids, got ", ids.sizes());
  auto tok = tok_emb(ids);
  if (scale_ != 1.0) tok = tok * scale_;
  if (zero_start_ && offset == 0 && tok.size(1) > 0) {
    // The first position's token row replaced by zeros (out of place: autograd keeps the rest).
    tok = torch::cat({torch::zeros_like(tok.narrow(1, 0, 1)), tok.narrow(1, 1, tok.size(1) - 1)}, 1);
  }
  return drop_out(tok + pos_emb(ids.size(1), offset));
}

}  // namespace nmt::model
