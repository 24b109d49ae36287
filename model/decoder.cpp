#include "model/decoder.h"

#include <algorithm>
#include <limits>

#include <torch/torch.h>

#include "model/masks.h"
#include "model/scale_dot_product_attention.h"

namespace nmt::model {

DecoderImpl::DecoderImpl(const DecoderOptions& o, TokenEmbedding shared_embedding) {
  emb = register_module("emb", TransformerEmbedding(o.embedding, shared_embedding));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < o.n_layers; ++i) layers->push_back(DecoderLayer(o.layer));
  if (o.layer.pre_norm) norm = register_module("norm", LayerNorm(o.layer.d_model, o.layer.norm_eps));
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

void DecoderImpl::cache_memory(const torch::Tensor& enc, kernels::DecoderCache& cache) {
  // enc [batch, src_len, d_model]
  if (cache.layers.empty()) cache.layers.resize(layers->size());
  TORCH_CHECK(cache.layers.size() == layers->size(), "a decoder cache of ", cache.layers.size(),
              " layers for a decoder of ", layers->size());
  for (size_t i = 0; i < layers->size(); ++i) {
    auto& kept = cache.layers[i].enc_dec;
    if (kept.empty()) layers[i]->as<DecoderLayer>()->enc_dec_attention->cache_memory(enc, kept);
  }
}

namespace {

// A CPU fp32 tensor's data where it lies contiguously, else null.
const float* fp32_data(const torch::Tensor& t) {
  const bool fits = t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous();
  return fits ? t.data_ptr<float>() : nullptr;
}

// A layer norm's parameters, or false where they are not CPU fp32.
bool step_norm(const LayerNorm& norm, kernels::StepNorm& out) {
  out = {fp32_data(norm->gamma), fp32_data(norm->beta), static_cast<float>(norm->eps())};
  return out.gamma && out.beta;
}

// Packed in fp32 or int8 (whose rows are fp32 in and out).
bool fused_product(const std::shared_ptr<const kernels::PackedLinear>& p) {
  return p && (p->dtype() == torch::kFloat || p->dtype() == torch::kChar);
}

}  // namespace

std::optional<kernels::DecoderStepWeights> DecoderImpl::step_weights() {
  if (is_training() || torch::GradMode::is_enabled()) return std::nullopt;
  kernels::DecoderStepWeights w;
  const auto& table = emb->pos_emb->table();
  w.embedding = fp32_data(emb->tok_emb->weight);
  w.positions = fp32_data(table);
  if (!w.embedding || !w.positions) return std::nullopt;
  w.vocab = emb->tok_emb->weight.size(0);
  w.d_model = emb->tok_emb->weight.size(1);
  w.embedding_scale = static_cast<float>(emb->scale());
  w.max_positions = table.size(0);
  w.zero_start = emb->zero_start();
  w.pre_norm = static_cast<bool>(norm);
  w.masked_score = static_cast<float>(kMaskedScore);
  if (w.pre_norm && !step_norm(norm, w.final_norm)) return std::nullopt;
  w.team_rows = std::numeric_limits<int64_t>::max();
  for (const auto& module : *layers) {
    auto& layer = *module->as<DecoderLayer>();
    auto& self = *layer.self_attention;
    auto& cross = *layer.enc_dec_attention;
    if (layer.pre_norm() != w.pre_norm || cross.keeps_attention() || self.n_head() != cross.n_head()) return std::nullopt;
    w.heads = self.n_head();
    w.activation = layer.ffn->activation();
    kernels::DecoderStepLayer l;
    if (!step_norm(layer.norm1, l.norm1) || !step_norm(layer.norm2, l.norm2) || !step_norm(layer.norm3, l.norm3)) {
      return std::nullopt;
    }
    l.qkv = self.packed_qkv();
    l.self_out = self.w_concat->packed();
    l.cross_q = cross.w_q->packed();
    l.cross_out = cross.w_concat->packed();
    l.ffn1 = layer.ffn->linear1->packed();
    l.ffn2 = layer.ffn->linear2->packed();
    for (const auto* p : {&l.qkv, &l.self_out, &l.cross_q, &l.cross_out, &l.ffn1, &l.ffn2}) {
      if (!fused_product(*p)) return std::nullopt;
      w.team_rows = std::min(w.team_rows, (*p)->step_kernel_rows());
    }
    w.layers.push_back(std::move(l));
  }
  w.output = linear->packed();
  if (!fused_product(w.output)) return std::nullopt;
  w.team_rows = std::min(w.team_rows, w.output->step_kernel_rows());
  return w;
}

}  // namespace nmt::model
