#include "kernels/decoder_step.h"

#include <utility>

#include <torch/torch.h>

#include "kernels/log_softmax.h"
#include "kernels/residual_norm.h"
#include "kernels/scratch.h"
#include "kernels/step_attention.h"
#include "kernels/step_team.h"

namespace nmt::kernels {
torch::Tensor DecoderStep::log_probs(const DecoderStepWeights& w, const int64_t* ids, int64_t id_stride, int64_t rows,
                                     const torch::Tensor& src_mask, DecoderCache& cache) {
  // ids [rows] -> [rows, vocab]
  const int64_t d = w.d_model, position = cache.length();
  TORCH_CHECK(cache.layers.size() == w.layers.size() && rows > 0 && w.heads > 0 && d % w.heads == 0,
              "a fused decoding step needs a cache of the decoder's layers with the memory's keys and values (",
              cache.layers.size(), " layers at ", position, " positions for a decoder of ", w.layers.size(), ")");
  TORCH_CHECK(position < w.max_positions, "positions ", position, "..", position + 1, " exceed model.max_len ",
              w.max_positions);
  for (auto* buffer : {&x_, &h_, &attended_, &sub_}) grow_to(*buffer, rows * d);
  grow_to(qkv_, rows * 3 * d);
  const torch::Tensor& valid = valid_mask(src_mask);
  auto out = torch::empty({rows, w.vocab}, torch::kFloat);
  // One parallel region for the whole step where every product is a step
  // kernel of ours (kernels/step_team.h), else one a product as before.
  const auto step = [&] { run(w, ids, id_stride, rows, valid, cache, out); };
  if (rows <= w.team_rows) {
    with_step_team(step);
  } else {
    step();
  }
  return out;
}

void DecoderStep::run(const DecoderStepWeights& w, const int64_t* ids, int64_t id_stride, int64_t rows,
                      const torch::Tensor& valid, DecoderCache& cache, torch::Tensor& out) {
  const int64_t d = w.d_model;
  embed(w, ids, id_stride, rows, cache.length());
  for (size_t l = 0; l < w.layers.size(); ++l) run_layer(w, w.layers[l], valid, rows, cache.layers[l]);
  const float* last = x_.data();
  if (w.pre_norm) {
    layer_norm_rows(x_.data(), nullptr, rows, d, w.final_norm.gamma, w.final_norm.beta, w.final_norm.eps, h_.data());
    last = h_.data();
  }
  w.output->forward_rows(last, rows, out.data_ptr<float>());
  log_softmax_rows_(out);
}

const torch::Tensor& DecoderStep::valid_mask(const torch::Tensor& src_mask) {
  // The scorer's mask changes only where sentences leave: made again then.
  if (src_mask.is_same(mask_of_valid_)) return valid_;
  mask_of_valid_ = src_mask;
  valid_ = torch::Tensor();
  if (src_mask.defined()) {
    valid_ = src_mask.reshape({src_mask.size(0), src_mask.size(-1)});
    if (valid_.scalar_type() != torch::kBool || !valid_.is_contiguous()) valid_ = valid_.to(torch::kBool).contiguous();
  }
  return valid_;
}

void DecoderStep::run_layer(const DecoderStepWeights& w, const DecoderStepLayer& layer, const torch::Tensor& valid,
                            int64_t rows, DecoderLayerCache& c) {
  const int64_t d = w.d_model, d_head = d / w.heads;
  // Self-attention: the stacked projection's keys and values go into the
  // cache, its queries are read where they lie.
  layer.qkv->forward_rows(sublayer_input(w, layer.norm1, rows), rows, qkv_.data());
  c.self_attention.append_step(qkv_.data(), rows, d, w.heads);
  StepMemory self = c.self_attention.step_memory();
  self.masked_score = w.masked_score;
  step_attention_rows(qkv_.data(), 3 * d, rows, w.heads, d_head, self, attended_.data());
  layer.self_out->forward_rows(attended_.data(), rows, sub_.data());
  end_sublayer(w, layer.norm1, rows);
  // Attention to the encoder output, a sentence's beams on its memory row.
  TORCH_CHECK(!c.enc_dec.empty() && rows % c.enc_dec.k.size(0) == 0, "a fused decoding step: ", rows,
              " rows for a memory of ", c.enc_dec.empty() ? 0 : c.enc_dec.k.size(0), " rows");
  layer.cross_q->forward_rows(sublayer_input(w, layer.norm2, rows), rows, qkv_.data());
  StepMemory cross = c.enc_dec.step_memory(rows / c.enc_dec.k.size(0), torch::Tensor());
  cross.valid = valid;
  cross.masked_score = w.masked_score;
  float* coverage = nullptr;
  if (c.enc_dec.coverage.defined()) {
    auto& kept = c.enc_dec.coverage;
    TORCH_CHECK(kept.scalar_type() == torch::kFloat && kept.is_contiguous() && kept.dim() == 2 &&
                    kept.size(0) == rows && kept.size(1) == cross.length,
                "a fused decoding step: coverage ", kept.sizes(), " for ", rows, " rows x ", cross.length,
                " positions");
    coverage = kept.data_ptr<float>();
  }
  step_attention_rows(qkv_.data(), d, rows, w.heads, d_head, cross, attended_.data(), coverage);
  layer.cross_out->forward_rows(attended_.data(), rows, sub_.data());
  end_sublayer(w, layer.norm2, rows);
  // Feed-forward, a relu inside the first product, any other activation after it.
  grow_to(hidden_, rows * layer.ffn1->out_features());
  const bool relu = w.activation == Activation::relu;
  layer.ffn1->forward_rows(sublayer_input(w, layer.norm3, rows), rows, hidden_.data(), relu);
  if (!relu) activate_in_place(hidden_.data(), rows * layer.ffn1->out_features(), w.activation);
  layer.ffn2->forward_rows(hidden_.data(), rows, sub_.data());
  end_sublayer(w, layer.norm3, rows);
}

void DecoderStep::embed(const DecoderStepWeights& w, const int64_t* ids, int64_t id_stride, int64_t rows,
                        int64_t position) {
  // As the embedding module: the token's row times the scale (rounded), then its position's added.
  const int64_t d = w.d_model;
  const float* at = w.positions + position * d;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t id = ids[r * id_stride];
    TORCH_CHECK(id >= 0 && id < w.vocab, "token id ", id, " outside a vocabulary of ", w.vocab);
    const float* token = w.embedding + id * d;
    float* x = x_.data() + r * d;
    if (w.zero_start && position == 0) {
      for (int64_t i = 0; i < d; ++i) x[i] = 0.0f + at[i];  // as the module: zeros, then the position added
    } else if (w.embedding_scale != 1.0f) {
      for (int64_t i = 0; i < d; ++i) x[i] = token[i] * w.embedding_scale;
      for (int64_t i = 0; i < d; ++i) x[i] += at[i];
    } else {
      for (int64_t i = 0; i < d; ++i) x[i] = token[i] + at[i];
    }
  }
}

const float* DecoderStep::sublayer_input(const DecoderStepWeights& w, const StepNorm& norm, int64_t rows) {
  if (!w.pre_norm) return x_.data();
  layer_norm_rows(x_.data(), nullptr, rows, w.d_model, norm.gamma, norm.beta, norm.eps, h_.data());
  return h_.data();
}

void DecoderStep::end_sublayer(const DecoderStepWeights& w, const StepNorm& norm, int64_t rows) {
  if (w.pre_norm) {
    add_rows(x_.data(), sub_.data(), rows * w.d_model, x_.data());  // element by element: in place is safe
  } else {
    layer_norm_rows(sub_.data(), x_.data(), rows, w.d_model, norm.gamma, norm.beta, norm.eps, h_.data());
    std::swap(x_, h_);
  }
}

}  // namespace nmt::kernels
