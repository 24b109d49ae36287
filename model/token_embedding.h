// Token embedding: the reference subclasses nn.Embedding(padding_idx=1), so
// its only parameter is `weight` [vocab, d_model]; the pad row gets no gradient.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace nmt::model {

class TokenEmbeddingImpl : public torch::nn::Module {
 public:
  TokenEmbeddingImpl(int64_t vocab_size, int64_t d_model, int64_t padding_idx);

  // ids [batch, len] (int64) -> [batch, len, d_model]
  torch::Tensor forward(const torch::Tensor& ids);

  torch::Tensor weight;

 private:
  int64_t padding_idx_;
};
TORCH_MODULE(TokenEmbedding);

}  // namespace nmt::model
