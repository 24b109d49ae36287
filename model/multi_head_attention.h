// Multi-head attention with the reference's parameter names (w_q, w_k, w_v,
// w_concat) and an incremental path that reuses cached keys and values.
// Projections of one input run as one matrix product (Q/K/V for
// self-attention, K/V for attention to a memory).
#pragma once

#include <initializer_list>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "kernels/attention_cache.h"
#include "kernels/inference_weights.h"
#include "model/linear.h"
#include "model/scale_dot_product_attention.h"

namespace nmt::model {

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  // attention_dropout: dropout on the attention weights while training (0: none, as the reference).
  MultiHeadAttentionImpl(int64_t d_model, int64_t n_head, double attention_dropout = 0.0);

  // q [batch, len_q, d_model], k/v [batch, len_k, d_model] -> [batch, len_q, d_model]
  torch::Tensor forward(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& mask);

  // Self-attention for new positions x [batch, new, d_model]: their keys and
  // values are appended to `cache`; `mask` hides keys as in forward (may be undefined
  // when one position is added, since causality then holds by construction).
  torch::Tensor forward_self_cached(const torch::Tensor& x, kernels::GrowingAttentionCache& cache,
                                    const torch::Tensor& mask);

  // Attention to a fixed memory (the encoder output, [memory rows, len_k,
  // d_model]): its keys and values are projected on the first call and reused
  // afterwards. q [batch, len_q, d_model], where batch is a multiple g of the
  // memory rows: rows [i * g, (i + 1) * g) attend to memory row i (a
  // sentence's beams share its keys and values). mask [memory rows, 1, 1, len_k].
  torch::Tensor forward_memory_cached(const torch::Tensor& q, const torch::Tensor& memory,
                                      kernels::AttentionCache& cache, const torch::Tensor& mask);
  // The memory's projected, head-split keys and values into an empty `cache`
  // (what forward_memory_cached's first call does; a fused decoding step's
  // first position needs them made beforehand).
  void cache_memory(const torch::Tensor& memory, kernels::AttentionCache& cache);

  // When on, the weights of the latest call are kept: [batch, head, len_q, len_k].
  void set_keep_attention(bool keep) { keep_attention_ = keep; }
  const torch::Tensor& last_attention() const { return last_attention_; }
  bool keeps_attention() const { return keep_attention_; }
  int64_t n_head() const { return n_head_; }
  // The packed product of the stacked w_q/w_k/w_v that self-attention would
  // run without autograd on the CPU now, or null (kernels/inference_weights.h).
  std::shared_ptr<const kernels::PackedLinear> packed_qkv();

  Linear w_q{nullptr}, w_k{nullptr}, w_v{nullptr}, w_concat{nullptr};
  ScaleDotProductAttention attention{nullptr};

 private:
  // x [b, l, d] through each of `linears` -> one [b, l, d] per linear, as one
  // matrix product of their stacked weights (kept in `stack` for inference).
  static std::vector<torch::Tensor> project(const torch::Tensor& x, kernels::InferenceWeights& stack,
                                            std::initializer_list<Linear> linears);
  // x through w_q, w_k and w_v as one product: [b, l, d] -> [b, l, 3d].
  torch::Tensor stacked_qkv(const torch::Tensor& x);
  torch::Tensor split(const torch::Tensor& x) const;   // [b, l, d] -> [b, h, l, d/h]
  torch::Tensor concat(const torch::Tensor& x) const;  // [b, h, l, d/h] -> [b, l, d]
  torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& mask);
  // One new position per row (q [rows, 1, d_model]) through step_attention, then w_concat.
  // `coverage` (or null): the cache's coverage, which the step's weights add to.
  torch::Tensor attend_step(const torch::Tensor& q, kernels::StepMemory memory, torch::Tensor* coverage = nullptr);
  // Self-attention of every position of qkv ([batch, len, 3 x d_model], the
  // stacked projection, fp32 on the CPU) in place through step attention, a
  // sentence's positions a group of query rows on its own keys and values;
  // mask [batch, 1, 1, len] or undefined. Then w_concat. Inference only: the
  // ~15 operators of the general path (views, copies, batched products,
  // masking, softmax) cost more than an encoder layer's attention on short
  // sentences at batch 1.
  torch::Tensor self_attend_rows(const torch::Tensor& qkv, const torch::Tensor& mask);

  kernels::InferenceWeights qkv_, kv_;  // stacked w_q/w_k/w_v (self-attention) and w_k/w_v (a memory)
  int64_t n_head_;
  bool keep_attention_ = false;
  torch::Tensor last_attention_;
};
TORCH_MODULE(MultiHeadAttention);

}  // namespace nmt::model
