#include "model/decoder.h"

#include <torch/torch.h>

#include "model/masks.h"

namespace nmt::model {

DecoderImpl::DecoderImpl(const DecoderOptions& o, TokenEmbedding shared_embedding) {
  emb = register_module("emb", TransformerEmbedding(o.embedding, shared_embedding));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < o.n_layers; ++i) layers->push_back(DecoderLayer(o.layer));
  if (o.layer.pre_norm) norm = register_module("norm", LayerNorm(o.layer.d_model));
  const auto& e = o.embedding;
  linear = register_module("linear", o.tie_output ? OutputProjection(emb->tok_emb->weight)
                                                  : OutputProjection(e.d_model, e.vocab_size));
}

torch::Tensor DecoderImpl::forward(const torch::Tensor& trg, const torch::Tensor& enc, const torch::Tensor& trg_mask,
                                   const torch::Tensor& src_mask) {
  // [batch, trg_len] -> [batch, trg_len, vocab]
  return linear(forward_hidden(trg, enc, trg_mask, src_mask));
}

torch::Tensor DecoderImpl::forward_hidden(const torch::Tensor& trg, const torch::Tensor& enc,
                                          const torch::Tensor& trg_mask, const torch::Tensor& src_mask) {
  // [batch, trg_len] -> [batch, trg_len, d_model]
  auto x = emb(trg);
  for (const auto& layer : *layers) x = layer->as<DecoderLayer>()->forward(x, enc, trg_mask, src_mask);
  if (norm) x = norm(x);
  return x;
}

torch::Tensor DecoderImpl::forward_cached(const torch::Tensor& trg, const torch::Tensor& enc,
                                          const torch::Tensor& src_mask, kernels::DecoderCache& cache) {
  // [batch, new] -> [batch, new, vocab]
  const int64_t n_new = trg.size(1);
  if (cache.layers.empty()) cache.layers.resize(layers->size());
  // One new position sees every cached one; several need the causal block.
  torch::Tensor self_mask;
  if (n_new > 1) {
    self_mask = causal_mask(cache.length() + n_new, trg.device()).narrow(0, cache.length(), n_new);
  }
  auto x = emb(trg, cache.length());
  for (size_t i = 0; i < layers->size(); ++i) {
    x = layers[i]->as<DecoderLayer>()->forward_cached(x, enc, src_mask, cache.layers[i], self_mask);
  }
  if (norm) x = norm(x);
  return linear(x);
}

}  // namespace nmt::model
