#include "model/multi_head_attention.h"

#include <torch/torch.h>

#include "kernels/step_attention.h"

namespace nmt::model {

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t d_model, int64_t n_head, double attention_dropout)
    : n_head_(n_head) {
  TORCH_CHECK(d_model % n_head == 0, "d_model ", d_model, " is not divisible by n_head ", n_head);
  attention = register_module("attention", ScaleDotProductAttention(attention_dropout));
  w_q = register_module("w_q", Linear(d_model, d_model));
  w_k = register_module("w_k", Linear(d_model, d_model));
  w_v = register_module("w_v", Linear(d_model, d_model));
  w_concat = register_module("w_concat", Linear(d_model, d_model));
}

torch::Tensor MultiHeadAttentionImpl::split(const torch::Tensor& x) const {
  TORCH_CHECK(x.dim() == 3, "expected [batch, len, d_model], got ", x.sizes());
  const int64_t d_head = x.size(2) / n_head_;
  return x.view({x.size(0), x.size(1), n_head_, d_head}).transpose(1, 2);
}

torch::Tensor MultiHeadAttentionImpl::concat(const torch::Tensor& x) const {
  return x.transpose(1, 2).contiguous().view({x.size(0), x.size(2), x.size(1) * x.size(3)});
}

torch::Tensor MultiHeadAttentionImpl::attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                             const torch::Tensor& mask) {
  auto [out, weights] = attention(q, k, v, mask);
  if (keep_attention_) last_attention_ = weights.detach();
  return w_concat(concat(out));
}

std::vector<torch::Tensor> MultiHeadAttentionImpl::project(const torch::Tensor& x, kernels::InferenceWeights& stack,
                                                           std::initializer_list<Linear> linears) {
  // The parameters themselves stay separate, under the reference's names.
  std::vector<torch::Tensor> weights, biases;
  for (const auto& l : linears) {
    weights.push_back(l->weight);
    biases.push_back(l->bias);
  }
  return stack.linear(x, weights, biases).chunk(static_cast<int64_t>(weights.size()), -1);
}

torch::Tensor MultiHeadAttentionImpl::stacked_qkv(const torch::Tensor& x) {
  // [b, l, d] -> [b, l, 3d]
  return qkv_.linear(x, {w_q->weight, w_k->weight, w_v->weight}, {w_q->bias, w_k->bias, w_v->bias});
}

std::shared_ptr<const kernels::PackedLinear> MultiHeadAttentionImpl::packed_qkv() {
  return qkv_.packed({w_q->weight, w_k->weight, w_v->weight}, {w_q->bias, w_k->bias, w_v->bias});
}

torch::Tensor MultiHeadAttentionImpl::forward(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                              const torch::Tensor& mask) {
  // [batch, len_q, d_model]
  if (q.is_same(k) && k.is_same(v)) {  // self-attention
    const auto stacked = stacked_qkv(q);
    const bool padding_mask_only = !mask.defined() || (mask.dim() == 4 && mask.size(0) == q.size(0) &&
                                                        mask.size(1) == 1 && mask.size(2) == 1 &&
                                                        mask.size(3) == q.size(1));
    if (!is_training() && !keep_attention_ && padding_mask_only && stacked.scalar_type() == torch::kFloat &&
        kernels::step_attention_supported(stacked, stacked)) {
      return self_attend_rows(stacked.contiguous(), mask);
    }
    const auto qkv = stacked.chunk(3, -1);
    return attend(split(qkv[0]), split(qkv[1]), split(qkv[2]), mask);
  }
  if (k.is_same(v)) {  // attention to a memory
    const auto kv = project(k, kv_, {w_k, w_v});
    return attend(split(w_q(q)), split(kv[0]), split(kv[1]), mask);
  }
  return attend(split(w_q(q)), split(w_k(k)), split(w_v(v)), mask);
}

torch::Tensor MultiHeadAttentionImpl::forward_self_cached(const torch::Tensor& x, kernels::GrowingAttentionCache& cache,
                                                          const torch::Tensor& mask) {
  // [batch, new, d_model]
  if (x.size(1) == 1 && !mask.defined() && !is_training() && kernels::step_attention_supported(x, x)) {
    // One new position: the stacked projection's keys and values go straight
    // into the cache and its queries are read in place (a few operators
    // instead of ~25 views and copies per layer and step).
    const auto qkv = stacked_qkv(x).contiguous();
    cache.append_step(qkv, n_head_);
    const int64_t rows = x.size(0), d_model = x.size(2);
    const auto q = qkv.as_strided({rows, 1, d_model}, {3 * d_model, 3 * d_model, 1}, qkv.storage_offset());
    return attend_step(q, cache.step_memory());
  }
  const auto qkv = stacked_qkv(x).chunk(3, -1);
  cache.append(split(qkv[1]), split(qkv[2]));
  if (x.size(1) == 1 && !mask.defined() && !is_training() && kernels::step_attention_supported(qkv[0], qkv[1])) {
    return attend_step(qkv[0], cache.step_memory());
  }
  return attend(split(qkv[0]), cache.keys(), cache.values(), mask);
}

torch::Tensor MultiHeadAttentionImpl::self_attend_rows(const torch::Tensor& qkv, const torch::Tensor& mask) {
  // [batch, len, 3 x d_model] -> [batch, len, d_model]
  const int64_t batch = qkv.size(0), len = qkv.size(1), d_model = qkv.size(2) / 3;
  kernels::StepMemory memory;
  memory.keys = qkv.narrow(2, d_model, d_model);
  memory.values = qkv.narrow(2, 2 * d_model, d_model);
  memory.length = len;
  memory.position_stride = 3 * d_model;
  memory.row_stride = len * 3 * d_model;
  memory.head_stride = d_model / n_head_;
  memory.group = len;  // query row b * len + i attends to sentence b
  if (mask.defined()) memory.valid = mask.reshape({batch, len}).to(torch::kBool).contiguous();
  memory.masked_score = static_cast<float>(kMaskedScore);
  auto out = torch::empty({batch, len, d_model}, qkv.options());
  kernels::step_attention_rows(qkv.data_ptr<float>(), 3 * d_model, batch * len, n_head_, d_model / n_head_, memory,
                               out.data_ptr<float>());
  return w_concat(out);
}

torch::Tensor MultiHeadAttentionImpl::attend_step(const torch::Tensor& q, kernels::StepMemory memory,
                                                  torch::Tensor* coverage) {
  // [rows, 1, d_model]
  memory.masked_score = static_cast<float>(kMaskedScore);
  const int64_t rows = q.size(0), d_model = q.size(2);
  torch::Tensor weights;
  const auto out = kernels::step_attention(q.reshape({rows, n_head_, d_model / n_head_}), memory,
                                           keep_attention_ ? &weights : nullptr, coverage);
  if (keep_attention_) last_attention_ = weights.unsqueeze(2);
  return w_concat(out.view({rows, 1, d_model}));
}

void MultiHeadAttentionImpl::cache_memory(const torch::Tensor& memory, kernels::AttentionCache& cache) {
  // [memory rows, len_k, d_model] -> k, v [memory rows, head, len_k, d_head]
  TORCH_CHECK(cache.empty(), "the memory's keys and values are already cached");
  const auto kv = project(memory, kv_, {w_k, w_v});
  // Contiguous once, so that no step copies them for a batched product.
  cache.k = split(kv[0]).contiguous();
  cache.v = split(kv[1]).contiguous();
}

torch::Tensor MultiHeadAttentionImpl::forward_memory_cached(const torch::Tensor& q, const torch::Tensor& memory,
                                                            kernels::AttentionCache& cache, const torch::Tensor& mask) {
  // [batch, len_q, d_model]
  if (cache.empty()) cache_memory(memory, cache);
  const int64_t memory_rows = cache.k.size(0), rows = q.size(0);
  TORCH_CHECK(rows % memory_rows == 0, "attention to a memory of ", memory_rows, " rows from ", rows,
              " query rows, not a multiple");
  const int64_t group = rows / memory_rows;
  if (q.size(1) == 1 && !is_training() && kernels::step_attention_supported(q, cache.k)) {
    return attend_step(w_q(q), cache.step_memory(group, mask), cache.coverage.defined() ? &cache.coverage : nullptr);
  }
  if (group == 1 && !cache.coverage.defined()) return attend(split(w_q(q)), cache.k, cache.v, mask);
  // A group's queries become more query positions of its memory row:
  // [rows, h, new, d_h] -> [memory rows, h, group * new, d_h].
  const int64_t fresh = q.size(1), heads = n_head_;
  const auto grouped = split(w_q(q))
                           .reshape({memory_rows, group, heads, fresh, -1})
                           .permute({0, 2, 1, 3, 4})
                           .reshape({memory_rows, heads, group * fresh, -1});
  auto [out, weights] = attention(grouped, cache.k, cache.v, mask);
  auto ungroup = [&](const torch::Tensor& t) {  // [memory rows, h, group * new, x] -> [rows, h, new, x]
    return t.view({memory_rows, heads, group, fresh, -1}).permute({0, 2, 1, 3, 4}).reshape({rows, heads, fresh, -1});
  };
  if (keep_attention_) last_attention_ = ungroup(weights.detach());
  if (cache.coverage.defined()) cache.coverage.add_(ungroup(weights).select(2, -1).mean(1).to(torch::kFloat));
  return w_concat(concat(ungroup(out)));
}

}  // namespace nmt::model
