// The whole model: encoder + decoder with the reference's module tree, so that
// its state_dict keys (encoder.layers.0.attention.w_q.weight, ...) line up.
#pragma once

#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "kernels/attention_cache.h"
#include "model/decoder.h"
#include "model/encoder.h"
#include "util/config.h"

namespace nmt::model {

class TransformerImpl : public torch::nn::Module {
 public:
  explicit TransformerImpl(const ModelConfig& config);

  // src [batch, src_len], trg [batch, trg_len] (decoder input) -> logits [batch, trg_len, dec_voc]
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& trg);

  // forward() without the output projection: [batch, trg_len, d_model]. Training
  // projects only the positions with a real target (decoder->linear), which
  // skips the vocabulary-sized work on padding.
  torch::Tensor forward_hidden(const torch::Tensor& src, const torch::Tensor& trg);

  // src [batch, src_len] -> [batch, src_len, d_model]
  torch::Tensor encode(const torch::Tensor& src, const torch::Tensor& src_mask);

  // Logits for the positions of `trg` after cache.length(): [batch, new, dec_voc].
  torch::Tensor decode_cached(const torch::Tensor& trg, const torch::Tensor& enc, const torch::Tensor& src_mask,
                              kernels::DecoderCache& cache);

  torch::Tensor make_src_mask(const torch::Tensor& src) const;
  torch::Tensor make_trg_mask(const torch::Tensor& trg) const;

  // Keep attention weights of the decoder's cross-attention for callers
  // (pictures): one [batch, head, len_q, len_k] tensor per layer, latest call.
  void set_keep_attention(bool keep);
  std::vector<torch::Tensor> cross_attention() const;

  // Parameters once each, even when tables are shared (for optimizers).
  std::vector<torch::Tensor> unique_parameters() const;

  const ModelConfig& config() const { return config_; }

  Encoder encoder{nullptr};
  Decoder decoder{nullptr};

 private:
  ModelConfig config_;
};
TORCH_MODULE(Transformer);

// The reference's training-script initialisation: kaiming_uniform_ on every
// parameter with more than one dimension (biases and norms keep their init).
void init_weights_like_reference(TransformerImpl& model);

// Where the model's parameters live (the CPU for a model without any).
torch::Device device_of(const TransformerImpl& model);

}  // namespace nmt::model
