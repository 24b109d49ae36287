// A decoding step of the decoder fused for the CPU: one new position per row
// through every layer, the output projection and the log-softmax, on raw rows
// in buffers kept from step to step, with fp32 or int8 products
// (PackedLinear::forward_rows) and the kernels the modules' own step path
// calls (step attention, layer norms, residual sums), so that its results are
// the same bits as model::DecoderImpl::forward_cached followed by the
// scorer's log-softmax. That path dispatches ~60 tensor operators a step
// (views, casts, an allocation for every intermediate): at batch 1 on a small
// model those cost more than the arithmetic (docs/performance.md). Here the
// one tensor made is the step's output.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/types.h>

#include "kernels/activation.h"
#include "kernels/attention_cache.h"
#include "kernels/packed_linear.h"

namespace nmt::kernels {

// A layer norm's parameters ([d_model] fp32 each).
struct StepNorm {
  const float* gamma = nullptr;
  const float* beta = nullptr;
  float eps = 0;
};

// One decoder layer: its norms and its products (fp32 or int8 packed linears).
struct DecoderStepLayer {
  StepNorm norm1, norm2, norm3;
  std::shared_ptr<const PackedLinear> qkv;        // self-attention's stacked w_q, w_k, w_v: d -> 3d
  std::shared_ptr<const PackedLinear> self_out;   // its w_concat
  std::shared_ptr<const PackedLinear> cross_q;    // the cross-attention's w_q
  std::shared_ptr<const PackedLinear> cross_out;  // its w_concat
  std::shared_ptr<const PackedLinear> ffn1, ffn2;  // ffn1 then the activation
};

// What a step reads of the decoder (model::DecoderImpl::step_weights fills it).
struct DecoderStepWeights {
  const float* embedding = nullptr;  // [vocab, d_model]
  int64_t vocab = 0;
  float embedding_scale = 1;         // token embeddings times this (sqrt(d_model) or 1)
  const float* positions = nullptr;  // [max_positions, d_model]: added to the scaled embedding
  int64_t max_positions = 0;
  bool zero_start = false;           // position 0 reads zeros instead of its token's row
  Activation activation = Activation::relu;  // the feed-forward's, in every layer
  int64_t d_model = 0, heads = 0;
  bool pre_norm = false;
  std::vector<DecoderStepLayer> layers;
  StepNorm final_norm;  // pre-norm only
  std::shared_ptr<const PackedLinear> output;  // d_model -> vocab
  // The most rows at which every product runs this library's kernels
  // (PackedLinear::step_kernel_rows), so that a step of up to this many rows
  // opens one parallel region (kernels/step_team.h) and one of more one a
  // product: decided once, where the weights are gathered.
  int64_t team_rows = 0;
  float masked_score = 0;  // the score hidden source positions get (the model's attention fills them so)
};

class DecoderStep {
 public:
  // Row r's newest token is ids[r * id_stride]; its position is
  // cache.length(): the self-attention caches hold the positions before it in
  // fp32 (none at the first), the cross-attention caches the memory's keys
  // and values (model::DecoderImpl::cache_memory). src_mask [memory rows, 1, 1, src_len]
  // (bool) or undefined. Returns log-probabilities [rows, vocab] (fp32) and
  // grows the self-attention caches (and the cross-attention coverage where
  // kept) by the step.
  torch::Tensor log_probs(const DecoderStepWeights& w, const int64_t* ids, int64_t id_stride, int64_t rows,
                          const torch::Tensor& src_mask, DecoderCache& cache);

 private:
  // log_probs's work, the log-probabilities into out [rows, vocab].
  void run(const DecoderStepWeights& w, const int64_t* ids, int64_t id_stride, int64_t rows, const torch::Tensor& valid,
           DecoderCache& cache, torch::Tensor& out);
  // One layer on x_, its caches grown by the step; valid: the source mask as
  // contiguous bools [memory rows, src_len], or undefined.
  void run_layer(const DecoderStepWeights& w, const DecoderStepLayer& layer, const torch::Tensor& valid, int64_t rows,
                 DecoderLayerCache& c);
  void embed(const DecoderStepWeights& w, const int64_t* ids, int64_t id_stride, int64_t rows, int64_t position);
  // x = x + f(norm(x)) (pre-norm) or norm(f(x) + x) (post-norm), f's output in sub_.
  void end_sublayer(const DecoderStepWeights& w, const StepNorm& norm, int64_t rows);
  // The sublayer's input: norm(x) in h_ (pre-norm) or x itself.
  const float* sublayer_input(const DecoderStepWeights& w, const StepNorm& norm, int64_t rows);
  // The source mask as contiguous bools [memory rows, src_len], made once
  // for every layer and kept while the scorer's mask stays the same tensor.
  const torch::Tensor& valid_mask(const torch::Tensor& src_mask);
  std::vector<float> x_, h_, qkv_, attended_, sub_, hidden_;
  torch::Tensor mask_of_valid_, valid_;
};

}  // namespace nmt::kernels
