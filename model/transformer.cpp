#include "model/transformer.h"

#include <set>

#include <torch/torch.h>

#include "model/masks.h"

namespace nmt::model {
namespace {

EmbeddingOptions embedding_options(const ModelConfig& c, int64_t vocab_size, int64_t pad) {
  EmbeddingOptions e;
  e.vocab_size = vocab_size;
  e.d_model = c.d_model;
  e.max_len = c.max_len;
  e.padding_idx = pad;
  e.drop_prob = c.drop_prob;
  e.scale = c.scale_embedding;
  e.learned = c.learned_positions;
  return e;
}

LayerOptions layer_options(const ModelConfig& c) {
  LayerOptions o;
  o.d_model = c.d_model;
  o.n_head = c.n_head;
  o.ffn_hidden = c.ffn_hidden;
  o.drop_prob = c.drop_prob;
  o.pre_norm = c.pre_norm;
  o.norm_eps = c.norm_eps;
  o.attention_dropout = c.attention_dropout;
  o.activation_dropout = c.ffn_dropout();
  o.activation = kernels::activation_from_name(c.activation);
  return o;
}

}  // namespace

TransformerImpl::TransformerImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  TORCH_CHECK(config_.enc_voc_size > 0 && config_.dec_voc_size > 0, "vocabulary sizes must be set");
  encoder = register_module(
      "encoder", Encoder(embedding_options(config_, config_.enc_voc_size, config_.src_pad_idx), layer_options(config_),
                         config_.n_layers));
  DecoderOptions d;
  d.embedding = embedding_options(config_, config_.dec_voc_size, config_.trg_pad_idx);
  d.embedding.zero_start = config_.start_from_zero_embedding;
  d.layer = layer_options(config_);
  d.n_layers = config_.n_layers;
  d.tie_output = config_.tie_output;
  decoder = register_module(
      "decoder", Decoder(d, config_.share_embeddings ? encoder->emb->tok_emb : TokenEmbedding(nullptr)));
}

torch::Tensor TransformerImpl::make_src_mask(const torch::Tensor& src) const {
  return model::make_src_mask(src, config_.src_pad_idx);
}

torch::Tensor TransformerImpl::make_trg_mask(const torch::Tensor& trg) const {
  return model::make_trg_mask(trg, config_.trg_pad_idx);
}

torch::Tensor TransformerImpl::forward(const torch::Tensor& src, const torch::Tensor& trg) {
  // [batch, src_len], [batch, trg_len] -> [batch, trg_len, dec_voc]
  auto src_mask = make_src_mask(src);
  auto enc = encoder(src, src_mask);
  return decoder(trg, enc, make_trg_mask(trg), src_mask);
}

torch::Tensor TransformerImpl::forward_hidden(const torch::Tensor& src, const torch::Tensor& trg) {
  // [batch, src_len], [batch, trg_len] -> [batch, trg_len, d_model]
  auto src_mask = make_src_mask(src);
  auto enc = encoder(src, src_mask);
  return decoder->forward_hidden(trg, enc, make_trg_mask(trg), src_mask);
}

torch::Tensor TransformerImpl::encode(const torch::Tensor& src, const torch::Tensor& src_mask) {
  // [batch, src_len] -> [batch, src_len, d_model]
  return encoder(src, src_mask);
}

torch::Tensor TransformerImpl::decode_cached(const torch::Tensor& trg, const torch::Tensor& enc,
                                             const torch::Tensor& src_mask, kernels::DecoderCache& cache) {
  // [batch, new] -> [batch, new, dec_voc]
  return decoder->forward_cached(trg, enc, src_mask, cache);
}

void TransformerImpl::set_keep_attention(bool keep) {
  for (const auto& layer : *decoder->layers) layer->as<DecoderLayer>()->enc_dec_attention->set_keep_attention(keep);
}

std::vector<torch::Tensor> TransformerImpl::cross_attention() const {
  std::vector<torch::Tensor> out;
  for (const auto& layer : *decoder->layers) {
    out.push_back(layer->as<DecoderLayer>()->enc_dec_attention->last_attention());
  }
  return out;
}

std::vector<torch::Tensor> TransformerImpl::unique_parameters() const {
  std::vector<torch::Tensor> out;
  std::set<const void*> seen;
  for (const auto& p : parameters()) {
    if (seen.insert(p.unsafeGetTensorImpl()).second) out.push_back(p);
  }
  return out;
}

void init_weights_like_reference(TransformerImpl& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.unique_parameters()) {
    if (p.dim() > 1) torch::nn::init::kaiming_uniform_(p);
  }
}

torch::Device device_of(const TransformerImpl& model) {
  // The target embedding's table moves with every other parameter. Read
  // directly: listing the parameters (recursive, with their names) cost
  // ~2% of greedy batch-1 decoding of the sample model, once a sentence.
  if (model.decoder && model.decoder->emb && model.decoder->emb->tok_emb &&
      model.decoder->emb->tok_emb->weight.defined()) {
    return model.decoder->emb->tok_emb->weight.device();
  }
  return torch::Device(torch::kCPU);
}

}  // namespace nmt::model
