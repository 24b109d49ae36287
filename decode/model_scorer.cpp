#include "decode/model_scorer.h"

#include <torch/torch.h>

namespace nmt::decode {
namespace {

torch::Device device_of(const model::TransformerImpl& model) {
  const auto params = model.parameters();
  return params.empty() ? torch::Device(torch::kCPU) : params.front().device();
}

}  // namespace

ModelScorer::ModelScorer(model::TransformerImpl& model, const torch::Tensor& src, bool cached)
    : model_(model), cached_(cached), device_(device_of(model)) {
  const auto src_dev = src.to(device_, torch::kLong);
  src_mask_ = model_.make_src_mask(src_dev);
  enc_ = model_.encode(src_dev, src_mask_);
  row_sentence_.resize(static_cast<size_t>(src.size(0)));
  for (size_t r = 0; r < row_sentence_.size(); ++r) row_sentence_[r] = static_cast<int64_t>(r);
}

torch::Tensor ModelScorer::next_log_probs(const torch::Tensor& prefixes) {
  // [rows, t] -> [rows, vocab]
  const int64_t t = prefixes.size(1);
  torch::Tensor logits;
  if (cached_) {
    // Only the positions the cache has not seen yet (one per step).
    const auto fresh = prefixes.narrow(1, cache_.length, t - cache_.length).to(device_);
    logits = model_.decode_cached(fresh, enc_, src_mask_, cache_).select(1, -1);
  } else {
    const auto trg = prefixes.to(device_);
    logits = model_.decoder->forward(trg, enc_, model_.make_trg_mask(trg), src_mask_).select(1, -1);
  }
  return torch::log_softmax(logits.to(torch::kFloat), -1);
}

void ModelScorer::select_rows(const torch::Tensor& index) {
  const auto cpu_index = index.to(torch::kCPU, torch::kLong).contiguous();
  const auto* picked = cpu_index.data_ptr<int64_t>();
  std::vector<int64_t> sentences(static_cast<size_t>(cpu_index.numel()));
  for (size_t j = 0; j < sentences.size(); ++j) sentences[j] = row_sentence_.at(static_cast<size_t>(picked[j]));
  // Rows of one sentence hold identical encoder output, source mask and
  // cross-attention keys/values. When every position keeps its sentence (beams
  // reordered within each sentence, the usual beam-search step), those need
  // no copying; only the self-attention cache follows the beams.
  const bool same_sentences = sentences == row_sentence_;
  row_sentence_ = std::move(sentences);
  const auto idx = cpu_index.to(device_);
  if (!same_sentences) {
    enc_ = enc_.index_select(0, idx);
    src_mask_ = src_mask_.index_select(0, idx);
    if (cached_) cache_.select_rows(idx);
    return;
  }
  if (!cached_) return;
  for (auto& layer : cache_.layers) {
    auto& self = layer.self_attention;
    if (self.empty()) continue;
    self.k = self.k.index_select(0, idx);
    self.v = self.v.index_select(0, idx);
  }
}

}  // namespace nmt::decode
