#include "model/encoder.h"

#include <torch/torch.h>

namespace nmt::model {

EncoderImpl::EncoderImpl(const EmbeddingOptions& embedding, const LayerOptions& layer, int64_t n_layers) {
  emb = register_module("emb", TransformerEmbedding(embedding));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < n_layers; ++i) layers->push_back(EncoderLayer(layer));
  if (layer.pre_norm) norm = register_module("norm", LayerNorm(layer.d_model, layer.norm_eps));
}

torch::Tensor EncoderImpl::forward(const torch::Tensor& src, const torch::Tensor& src_mask) {
  // [batch, src_len] -> [batch, src_len, d_model]
  auto x = emb(src);
  for (const auto& layer : *layers) x = layer->as<EncoderLayer>()->forward(x, src_mask);
  return norm ? norm(x) : x;
}

}  // namespace nmt::model
