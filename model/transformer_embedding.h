// Token embedding plus positions, then dropout (module names tok_emb, pos_emb,
// drop_out as in the reference).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/dropout.h"
#include "model/positional_encoding.h"
#include "model/token_embedding.h"

namespace nmt::model {

struct EmbeddingOptions {
  int64_t vocab_size = 0, d_model = 0, max_len = 0, padding_idx = 1;
  double drop_prob = 0.1;
  bool scale = false;    // multiply token embeddings by sqrt(d_model)
  bool learned = false;  // learned positions
  bool zero_start = false;  // position 0 reads zeros instead of its token's row (Marian's decoder)
};

class TransformerEmbeddingImpl : public torch::nn::Module {
 public:
  // `shared` reuses another embedding's token table (shared source/target vocabulary).
  explicit TransformerEmbeddingImpl(const EmbeddingOptions& options, TokenEmbedding shared = nullptr);

  // ids [batch, len] -> [batch, len, d_model]; `offset` is the first position.
  torch::Tensor forward(const torch::Tensor& ids, int64_t offset = 0);

  TokenEmbedding tok_emb{nullptr};
  PositionalEncoding pos_emb{nullptr};
  Dropout drop_out{nullptr};
  // What token embeddings are multiplied by: sqrt(d_model), or 1.
  double scale() const { return scale_; }
  bool zero_start() const { return zero_start_; }

 private:
  double scale_;
  bool zero_start_;
};
TORCH_MODULE(TransformerEmbedding);

}  // namespace nmt::model
