// Embedding, a stack of decoder layers and the output projection `linear`
// (d_model -> target vocabulary). With Pre-LN a final LayerNorm `norm`.
#pragma once

#include <optional>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "kernels/attention_cache.h"
#include "kernels/decoder_step.h"
#include "model/decoder_layer.h"
#include "model/output_projection.h"
#include "model/transformer_embedding.h"

namespace nmt::model {

struct DecoderOptions {
  EmbeddingOptions embedding;
  LayerOptions layer;
  int64_t n_layers = 0;
  bool tie_output = false;  // `linear` reuses the token embedding table
};

class DecoderImpl : public torch::nn::Module {
 public:
  explicit DecoderImpl(const DecoderOptions& options, TokenEmbedding shared_embedding = nullptr);

  // trg [batch, trg_len] ids, enc [batch, src_len, d_model] -> logits [batch, trg_len, vocab]
  torch::Tensor forward(const torch::Tensor& trg, const torch::Tensor& enc, const torch::Tensor& trg_mask,
                        const torch::Tensor& src_mask);

  // The same up to the output projection: [batch, trg_len, d_model] (after
  // the final norm in Pre-LN), for callers that project only some positions.
  torch::Tensor forward_hidden(const torch::Tensor& trg, const torch::Tensor& enc, const torch::Tensor& trg_mask,
                               const torch::Tensor& src_mask);

  // Incremental: trg holds the positions after cache.length() [batch, new];
  // returns logits for them [batch, new, vocab] and extends the cache.
  torch::Tensor forward_cached(const torch::Tensor& trg, const torch::Tensor& enc, const torch::Tensor& src_mask,
                               kernels::DecoderCache& cache);
  // Each layer's cross-attention keys and values of enc into `cache` where
  // they are not there yet (the first forward_cached call makes them too):
  // what a fused step needs before it can take a sentence's first position.
  void cache_memory(const torch::Tensor& enc, kernels::DecoderCache& cache);
  // What a fused decoding step reads (kernels/decoder_step.h), or nullopt
  // where forward_cached must run instead: training or autograd on, a
  // parameter off the CPU or not fp32, products that would not run packed
  // in fp32 or int8 now (bf16 autocast, or OpenBLAS with a pool of its own),
  // or cross-attention weights kept for an alignment.
  std::optional<kernels::DecoderStepWeights> step_weights();

  TransformerEmbedding emb{nullptr};
  torch::nn::ModuleList layers{nullptr};
  LayerNorm norm{nullptr};  // Pre-LN only
  OutputProjection linear{nullptr};
};
TORCH_MODULE(Decoder);

}  // namespace nmt::model
