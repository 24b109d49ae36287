#include "model/encoder_layer.h"

#include <torch/torch.h>

#include "model/sublayer.h"

namespace nmt::model {

EncoderLayerImpl::EncoderLayerImpl(const LayerOptions& o) : pre_norm_(o.pre_norm) {
  // Registration order follows the reference's attribute order.
  attention = register_module("attention", MultiHeadAttention(o.d_model, o.n_head, o.attention_dropout));
  norm1 = register_module("norm1", LayerNorm(o.d_model, o.norm_eps));
  dropout1 = register_module("dropout1", Dropout(o.drop_prob));
  ffn = register_module("ffn", PositionwiseFeedForward(o.d_model, o.ffn_hidden, o.activation_dropout, o.activation));
  norm2 = register_module("norm2", LayerNorm(o.d_model, o.norm_eps));
  dropout2 = register_module("dropout2", Dropout(o.drop_prob));
}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& src_mask) {
  // [batch, src_len, d_model]
  auto y = residual(x, norm1, dropout1, pre_norm_, [&](const torch::Tensor& h) {
    return attention(h, h, h, src_mask);
  });
  return residual(y, norm2, dropout2, pre_norm_, [&](const torch::Tensor& h) { return ffn(h); });
}

}  // namespace nmt::model
