// Embedding plus a stack of encoder layers (`emb`, `layers.{i}`); with Pre-LN a
// final LayerNorm `norm` as well.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "model/encoder_layer.h"
#include "model/transformer_embedding.h"

namespace nmt::model {

class EncoderImpl : public torch::nn::Module {
 public:
  EncoderImpl(const EmbeddingOptions& embedding, const LayerOptions& layer, int64_t n_layers);

  // src [batch, src_len] ids, src_mask [batch, 1, 1, src_len] -> [batch, src_len, d_model]
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& src_mask);

  TransformerEmbedding emb{nullptr};
  torch::nn::ModuleList layers{nullptr};
  LayerNorm norm{nullptr};  // Pre-LN only
};
TORCH_MODULE(Encoder);

}  // namespace nmt::model
