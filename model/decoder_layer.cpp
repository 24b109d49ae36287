#include "model/decoder_layer.h"

#include <torch/torch.h>

#include "model/sublayer.h"

namespace nmt::model {

DecoderLayerImpl::DecoderLayerImpl(const LayerOptions& o) : pre_norm_(o.pre_norm) {
  self_attention = register_module("self_attention", MultiHeadAttention(o.d_model, o.n_head, o.attention_dropout));
  norm1 = register_module("norm1", LayerNorm(o.d_model, o.norm_eps));
  dropout1 = register_module("dropout1", Dropout(o.drop_prob));
  enc_dec_attention =
      register_module("enc_dec_attention", MultiHeadAttention(o.d_model, o.n_head, o.attention_dropout));
  norm2 = register_module("norm2", LayerNorm(o.d_model, o.norm_eps));
  dropout2 = register_module("dropout2", Dropout(o.drop_prob));
  ffn = register_module("ffn", PositionwiseFeedForward(o.d_model, o.ffn_hidden, o.activation_dropout, o.activation));
  norm3 = register_module("norm3", LayerNorm(o.d_model, o.norm_eps));
  dropout3 = register_module("dropout3", Dropout(o.drop_prob));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& dec, const torch::Tensor& enc,
                                        const torch::Tensor& trg_mask, const torch::Tensor& src_mask) {
  // [batch, trg_len, d_model]
  auto x = residual(dec, norm1, dropout1, pre_norm_, [&](const torch::Tensor& h) {
    return self_attention(h, h, h, trg_mask);
  });
  x = residual(x, norm2, dropout2, pre_norm_, [&](const torch::Tensor& h) {
    return enc_dec_attention(h, enc, enc, src_mask);
  });
  return residual(x, norm3, dropout3, pre_norm_, [&](const torch::Tensor& h) { return ffn(h); });
}

torch::Tensor DecoderLayerImpl::forward_cached(const torch::Tensor& dec, const torch::Tensor& enc,
                                               const torch::Tensor& src_mask, kernels::DecoderLayerCache& cache,
                                               const torch::Tensor& self_mask) {
  // [batch, new, d_model]
  auto x = residual(dec, norm1, dropout1, pre_norm_, [&](const torch::Tensor& h) {
    return self_attention->forward_self_cached(h, cache.self_attention, self_mask);
  });
  x = residual(x, norm2, dropout2, pre_norm_, [&](const torch::Tensor& h) {
    return enc_dec_attention->forward_memory_cached(h, enc, cache.enc_dec, src_mask);
  });
  return residual(x, norm3, dropout3, pre_norm_, [&](const torch::Tensor& h) { return ffn(h); });
}

}  // namespace nmt::model
