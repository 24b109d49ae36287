#include "decode/model_scorer.h"

#include <set>

#include <torch/torch.h>

#include "kernels/log_softmax.h"

namespace nmt::decode {
namespace {

torch::Tensor index_on(const std::vector<int64_t>& values, const torch::Device& device) {
  return torch::tensor(values, torch::kLong).to(device);
}

}  // namespace

ModelScorer::ModelScorer(model::TransformerImpl& model, const torch::Tensor& src, bool cached, int64_t coverage_layer)
    : model_(model), cached_(cached), device_(model::device_of(model)) {
  const auto src_dev = src.to(device_, torch::kLong);
  src_mask_ = model_.make_src_mask(src_dev);
  enc_ = model_.encode(src_dev, src_mask_);
  rows_ = src.size(0);
  if (cached_ && coverage_layer >= 0 && coverage_layer < model_.config().n_layers) {
    coverage_layer_ = coverage_layer;
    cache_.layers.resize(static_cast<size_t>(model_.config().n_layers));
    cache_.layers[static_cast<size_t>(coverage_layer_)].enc_dec.coverage =
        torch::zeros({rows_, src.size(1)}, torch::TensorOptions(torch::kFloat).device(device_));
  }
}

std::vector<float> ModelScorer::coverage(int64_t row) const {
  if (coverage_layer_ < 0) return {};
  const auto mass = cache_.layers[static_cast<size_t>(coverage_layer_)].enc_dec.coverage[row].to(torch::kCPU);
  return {mass.data_ptr<float>(), mass.data_ptr<float>() + mass.numel()};
}

torch::Tensor ModelScorer::next_log_probs(const torch::Tensor& prefixes) {
  // [rows, t] -> [rows, vocab]
  const int64_t t = prefixes.size(1);
  TORCH_CHECK(prefixes.size(0) == rows_, "the scorer holds ", rows_, " rows, asked for ", prefixes.size(0));
  torch::Tensor logits;
  if (cached_ && rows_ > 0 && t == cache_.length() + 1 && device_.is_cpu() && prefixes.scalar_type() == torch::kLong &&
      prefixes.device().is_cpu()) {
    // One new position on the CPU, the first included: the fused step, where
    // the model can take it (the memory's keys and values made first).
    if (const auto& weights = step_weights()) {
      if (t == 1) model_.decoder->cache_memory(enc_, cache_);
      const int64_t* newest = prefixes.data_ptr<int64_t>() + (t - 1) * prefixes.stride(1);
      return step_.log_probs(*weights, newest, prefixes.stride(0), rows_, src_mask_, cache_);
    }
  }
  if (cached_) {
    // Only the positions the cache has not seen yet (one per step).
    auto fresh = prefixes.narrow(1, cache_.length(), t - cache_.length());
    if (fresh.device() != device_) fresh = fresh.to(device_);
    logits = model_.decode_cached(fresh, enc_, src_mask_, cache_).select(1, -1);
  } else {
    const auto tgt = prefixes.to(device_);
    logits = model_.decoder->forward(tgt, enc_, model_.make_trg_mask(tgt), src_mask_).select(1, -1);
  }
  if (!logits.device().is_cpu()) return torch::log_softmax(logits.to(torch::kFloat), -1);
  // In place on the step's own logits (or their float copy).
  auto log_probs = logits.scalar_type() == torch::kFloat ? logits : logits.to(torch::kFloat);
  if (!log_probs.is_contiguous()) log_probs = log_probs.contiguous();
  kernels::log_softmax_rows_(log_probs);
  return log_probs;
}

const std::optional<kernels::DecoderStepWeights>& ModelScorer::step_weights() {
  if (!step_weights_asked_) {
    step_weights_ = model_.decoder->step_weights();
    step_weights_asked_ = true;
  }
  return step_weights_;
}

void ModelScorer::select_rows(const torch::Tensor& index) {
  const auto cpu_index = index.to(torch::kCPU, torch::kLong).contiguous();
  const std::vector<int64_t> picked(cpu_index.data_ptr<int64_t>(), cpu_index.data_ptr<int64_t>() + cpu_index.numel());
  if (picked.empty()) {  // the search has ended
    rows_ = 0;
    return;
  }
  select_memory(picked);
  bool identity = static_cast<int64_t>(picked.size()) == rows_;
  for (size_t j = 0; identity && j < picked.size(); ++j) identity = picked[j] == static_cast<int64_t>(j);
  rows_ = static_cast<int64_t>(picked.size());
  // The self-attention caches follow the beams, unless none moved.
  if (cached_ && !identity) cache_.select_target_rows(cpu_index.to(device_));
}

void ModelScorer::select_memory(const std::vector<int64_t>& picked) {
  const int64_t group = rows_ / enc_.size(0);
  std::vector<int64_t> needed(picked.size()), distinct;
  for (size_t j = 0; j < picked.size(); ++j) {
    needed[j] = picked[j] / group;
    if (distinct.empty() || distinct.back() != needed[j]) distinct.push_back(needed[j]);
  }
  // Grouped: equal runs, one per memory row, each row once (a beam-search step).
  const size_t runs = distinct.size();
  bool grouped = cached_ && runs > 0 && picked.size() % runs == 0 &&
                 std::set<int64_t>(distinct.begin(), distinct.end()).size() == runs;
  for (size_t j = 0; grouped && j < picked.size(); ++j) grouped = needed[j] == distinct[j / (picked.size() / runs)];
  const std::vector<int64_t>& keep = grouped ? distinct : needed;
  bool unchanged = static_cast<int64_t>(keep.size()) == enc_.size(0);
  for (size_t j = 0; unchanged && j < keep.size(); ++j) unchanged = keep[j] == static_cast<int64_t>(j);
  if (unchanged) return;
  const auto idx = index_on(keep, device_);
  enc_ = enc_.index_select(0, idx);
  src_mask_ = src_mask_.index_select(0, idx);
  if (cached_) cache_.select_memory_rows(idx);
}

}  // namespace nmt::decode
