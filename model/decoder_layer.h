// One decoder block: masked self-attention, attention to the encoder output,
// feed-forward; each with dropout + residual + LayerNorm.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "kernels/attention_cache.h"
#include "model/dropout.h"
#include "model/encoder_layer.h"

namespace nmt::model {

class DecoderLayerImpl : public torch::nn::Module {
 public:
  explicit DecoderLayerImpl(const LayerOptions& options);

  // dec [batch, trg_len, d_model], enc [batch, src_len, d_model],
  // trg_mask [batch, 1, trg_len, trg_len], src_mask [batch, 1, 1, src_len] -> [batch, trg_len, d_model]
  torch::Tensor forward(const torch::Tensor& dec, const torch::Tensor& enc, const torch::Tensor& trg_mask,
                        const torch::Tensor& src_mask);

  // Incremental: dec holds only the new positions [batch, new, d_model]; keys and
  // values of earlier positions and of `enc` come from `cache`, which is updated.
  torch::Tensor forward_cached(const torch::Tensor& dec, const torch::Tensor& enc, const torch::Tensor& src_mask,
                               kernels::DecoderLayerCache& cache, const torch::Tensor& self_mask);

  MultiHeadAttention self_attention{nullptr}, enc_dec_attention{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
  Dropout dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  PositionwiseFeedForward ffn{nullptr};
  bool pre_norm() const { return pre_norm_; }

 private:
  bool pre_norm_;
};
TORCH_MODULE(DecoderLayer);

}  // namespace nmt::model
