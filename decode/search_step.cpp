#include "decode/search_step.h"

#include <limits>

#include <torch/torch.h>

#include "decode/length_penalty.h"
#include "kernels/top_k.h"

namespace nmt::decode {

void restrict_next_tokens(torch::Tensor& log_probs, const SearchIds& ids, const std::vector<bool>& force_eos) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const int64_t vocab = log_probs.size(1);
  // A step's rows on the CPU are written in place: two column fills cost four
  // operators, a few microseconds at every step of a small model.
  const bool in_place = log_probs.device().is_cpu() && log_probs.scalar_type() == torch::kFloat &&
                        log_probs.is_contiguous();
  for (int64_t id : {ids.pad, ids.bos}) {
    if (id < 0 || id >= vocab || id == ids.eos) continue;
    if (!in_place) {
      log_probs.select(1, id).fill_(neg_inf);
      continue;
    }
    float* scores = log_probs.data_ptr<float>();
    for (int64_t r = 0; r < log_probs.size(0); ++r) scores[r * vocab + id] = -std::numeric_limits<float>::infinity();
  }
  std::vector<int64_t> forced;
  for (size_t r = 0; r < force_eos.size(); ++r) {
    if (force_eos[r]) forced.push_back(static_cast<int64_t>(r));
  }
  if (forced.empty()) return;
  const auto rows = index_tensor(forced).to(log_probs.device());
  const auto eos_col = log_probs.index_select(0, rows).select(1, ids.eos).clone();
  log_probs.index_fill_(0, rows, neg_inf);
  log_probs.select(1, ids.eos).index_copy_(0, rows, eos_col);
}

GrowingPrefixes::GrowingPrefixes(int64_t rows, int64_t bos) : buffer_(torch::empty({rows, 32}, torch::kLong)) {
  buffer_.select(1, 0).fill_(bos);
  view_ = buffer_.narrow(1, 0, 1);
}

void GrowingPrefixes::extend(const std::vector<int64_t>& keep, const std::vector<int64_t>& tokens) {
  TORCH_CHECK(keep.size() == tokens.size(), "one token for each kept prefix");
  bool in_order = static_cast<int64_t>(keep.size()) == buffer_.size(0);
  for (size_t j = 0; in_order && j < keep.size(); ++j) in_order = keep[j] == static_cast<int64_t>(j);
  if (!in_order) buffer_ = buffer_.index_select(0, index_tensor(keep));
  if (length_ == buffer_.size(1)) {  // full: twice the room
    auto wider = torch::empty({buffer_.size(0), 2 * length_}, torch::kLong);
    wider.narrow(1, 0, length_).copy_(buffer_);
    buffer_ = wider;
  }
  int64_t* data = buffer_.data_ptr<int64_t>();
  const int64_t stride = buffer_.size(1);
  for (size_t j = 0; j < tokens.size(); ++j) data[static_cast<int64_t>(j) * stride + length_] = tokens[j];
  view_ = buffer_.narrow(1, 0, ++length_);
}

std::pair<torch::Tensor, torch::Tensor> best_candidates(const torch::Tensor& log_probs, const torch::Tensor& sums,
                                                        int64_t width, int64_t k) {
  if (log_probs.device().is_cpu() && log_probs.scalar_type() == torch::kFloat && log_probs.is_contiguous()) {
    auto top = kernels::top_k_per_group(log_probs, sums, width, k);
    return {top.values, top.indices};
  }
  auto totals = sums.defined() ? log_probs + sums.to(log_probs.device(), log_probs.scalar_type()).unsqueeze(1)
                               : log_probs;
  auto [values, indices] = totals.reshape({log_probs.size(0) / width, width * log_probs.size(1)}).topk(k, 1);
  return {values.to(torch::kCPU, torch::kFloat), indices.to(torch::kCPU, torch::kLong)};
}

torch::Tensor index_tensor(const std::vector<int64_t>& values) {
  return torch::tensor(values, torch::dtype(torch::kLong));
}

Hypothesis completed(const torch::Tensor& prefix, double log_prob, const SearchOptions& options) {
  Hypothesis h;
  const auto body = prefix.narrow(0, 1, prefix.size(0) - 1).contiguous();
  h.tokens.assign(body.data_ptr<int64_t>(), body.data_ptr<int64_t>() + body.numel());
  h.log_prob = log_prob;
  h.score = normalized_score(log_prob, static_cast<int64_t>(h.tokens.size()) + 1, options.length_penalty,
                             options.length_penalty_form);
  return h;
}

}  // namespace nmt::decode
