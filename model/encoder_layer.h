// One encoder block: self-attention then feed-forward, each wrapped in
// dropout + residual + LayerNorm (Post-LN as the reference, or Pre-LN).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/dropout.h"
#include "model/layer_norm.h"
#include "model/multi_head_attention.h"
#include "model/position_wise_feed_forward.h"

namespace nmt::model {

struct LayerOptions {
  int64_t d_model = 0, n_head = 0, ffn_hidden = 0;
  double drop_prob = 0.1;          // after each sublayer (and, by default, in the FFN)
  bool pre_norm = false;
  double norm_eps = 1e-12;          // every LayerNorm's epsilon (the reference's 1e-12)
  double attention_dropout = 0.0;  // on the attention weights; the reference has none
  double activation_dropout = 0.1; // after the FFN's activation (ModelConfig::ffn_dropout(): drop_prob unless set)
  kernels::Activation activation = kernels::Activation::relu;  // the FFN's
};

class EncoderLayerImpl : public torch::nn::Module {
 public:
  explicit EncoderLayerImpl(const LayerOptions& options);

  // x [batch, src_len, d_model], src_mask [batch, 1, 1, src_len] -> [batch, src_len, d_model]
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& src_mask);

  MultiHeadAttention attention{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
  Dropout dropout1{nullptr}, dropout2{nullptr};
  PositionwiseFeedForward ffn{nullptr};

 private:
  bool pre_norm_;
};
TORCH_MODULE(EncoderLayer);

}  // namespace nmt::model
