#include "model/model_scorer.h"

#include <torch/torch.h>

namespace nmt::model {
namespace {

torch::Device device_of(const TransformerImpl& model) {
  const auto params = model.parameters();
  return params.empty() ? torch::Device(torch::kCPU) : params.front().device();
}

}  // namespace

ModelScorer::ModelScorer(TransformerImpl& model, const torch::Tensor& src, bool cached)
    : model_(model), cached_(cached), device_(device_of(model)) {
  const auto src_dev = src.to(device_, torch::kLong);
  src_mask_ = model_.make_src_mask(src_dev);
  enc_ = model_.encode(src_dev, src_mask_);
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
  const auto idx = index.to(device_, torch::kLong);
  // The decoder reads the encoder output only until its cross-attention keys
  // are cached, but keeping it aligned costs little and keeps this independent
  // of that detail.
  enc_ = enc_.index_select(0, idx);
  src_mask_ = src_mask_.index_select(0, idx);
  if (cached_) cache_.select_rows(idx);
}

}  // namespace nmt::model
