// The translator's teacher-forced passes over given targets: each target
// token's log-probability (score_targets, as CTranslate2's score_batch and
// Marian's scorer give them), and a decoder layer's cross-attention over a
// translation (cross_attention: alignments, placeholders, unknown copies,
// pictures).
#include <algorithm>

#include <torch/torch.h>

#include "decode/eval_mode.h"
#include "decode/translation.h"
#include "util/error.h"

namespace nmt::decode {
namespace {

// Attention weights are only kept while a picture is being made.
class KeepAttention {
 public:
  explicit KeepAttention(model::TransformerImpl& model) : model_(model) { model_.set_keep_attention(true); }
  ~KeepAttention() { model_.set_keep_attention(false); }
  KeepAttention(const KeepAttention&) = delete;
  KeepAttention& operator=(const KeepAttention&) = delete;

 private:
  model::TransformerImpl& model_;
};

// Drops column 1 (the tag's) of per-source-position values, adding it to
// column 0 (sos's): [..., sos, tag, ids...] -> [..., sos, ids...].
torch::Tensor fold_tag(const torch::Tensor& per_position) {
  return torch::cat({per_position.narrow(-1, 0, 1) + per_position.narrow(-1, 1, 1),
                     per_position.narrow(-1, 2, per_position.size(-1) - 2)},
                    -1);
}

// A model that reads its sources without sos or eos still reports
// per-source-position values in the layout [sos, ids..., eos]: zeros where
// it has none.
torch::Tensor add_missing_ends(const torch::Tensor& per_position, const ModelConfig& c) {
  // [..., source (+ sos, eos where the model reads them)]: the last dim holds one sentence without padding.
  auto out = per_position;
  auto zero = torch::zeros_like(out.narrow(-1, 0, 1));
  if (!c.source_bos) out = torch::cat({zero, out}, -1);
  if (!c.source_eos) out = torch::cat({out, zero}, -1);
  return out;
}

}  // namespace

std::vector<std::vector<float>> Translator::score_targets(const std::vector<std::vector<int64_t>>& sources,
                                                         const std::vector<std::vector<int64_t>>& targets) {
  if (sources.size() != targets.size()) {
    throw std::invalid_argument(std::to_string(sources.size()) + " sources were given " +
                                std::to_string(targets.size()) + " targets.");
  }
  check_lengths(sources, {});
  for (size_t i = 0; i < targets.size(); ++i) check_prefix_length(targets[i], "The target of pair " + std::to_string(i));
  c10::InferenceMode inference;
  EvalMode eval(*model_);
  PrecisionScope precision_scope(options_.precision, device_);
  std::vector<std::vector<float>> out(sources.size());
  const auto batch = static_cast<size_t>(options_.batch_size);
  for (size_t first = 0; first < sources.size(); first += batch) {
    const size_t end = std::min(sources.size(), first + batch);
    std::vector<BatchSource> rows;
    std::vector<std::vector<int64_t>> tagged;  // each target after the target tag, if any
    size_t longest = 0;
    for (size_t i = first; i < end; ++i) {
      tagged.push_back(with_target_tag(targets[i]));
      longest = std::max(longest, tagged.back().size());
    }
    for (size_t i = first; i < end; ++i) rows.push_back({&sources[i], &tagged[i - first]});
    // [rows, longest + 1]: bos, the tag, the target, padding; scored against
    // the target, then eos (BatchSource's target_prefix holds it here).
    auto tgt_in = torch::full({static_cast<int64_t>(rows.size()), static_cast<int64_t>(longest + 1)}, ids_.pad,
                              torch::kLong);
    auto a = tgt_in.accessor<int64_t, 2>();
    for (size_t r = 0; r < rows.size(); ++r) {
      a[r][0] = ids_.bos;
      for (size_t j = 0; j < rows[r].target_prefix->size(); ++j) a[r][j + 1] = (*rows[r].target_prefix)[j];
    }
    const size_t tag = target_tag_ >= 0 ? 1 : 0;
    const auto log_probs =
        model_->forward(wrap_sources(rows).to(device_), tgt_in.to(device_)).log_softmax(-1).to(torch::kCPU, torch::kFloat);
    const auto lp = log_probs.accessor<float, 3>();
    for (size_t r = 0; r < rows.size(); ++r) {
      const auto& target = *rows[r].target_prefix;
      auto& values = out[first + r];
      for (size_t j = tag; j <= target.size(); ++j) {
        values.push_back(lp[r][j][j < target.size() ? target[j] : ids_.eos]);
      }
    }
  }
  return out;
}

torch::Tensor Translator::cross_attention(const std::vector<int64_t>& source, const std::vector<int64_t>& target,
                                          int64_t layer, int64_t heads) {
  const auto n_layers = static_cast<int64_t>(model_->config().n_layers);
  const int64_t index = layer < 0 ? n_layers + layer : layer;
  if (index < 0 || index >= n_layers) {
    throw UsageError("--attention-layer " + std::to_string(layer) + " is out of range; the model has " +
                     std::to_string(n_layers) + " decoder layers (0.." + std::to_string(n_layers - 1) + ").");
  }
  c10::InferenceMode inference;
  const std::vector<int64_t> tagged = with_target_tag(target);
  std::vector<int64_t> tgt_in{ids_.bos};
  tgt_in.insert(tgt_in.end(), tagged.begin(), tagged.end());
  const auto src = wrap_sources({{&source, &target}}).to(device_);
  const auto tgt = torch::tensor(tgt_in, torch::kLong).unsqueeze(0).to(device_);
  EvalMode eval(*model_);
  KeepAttention keep(*model_);
  PrecisionScope precision_scope(options_.precision, device_);
  model_->forward(src, tgt);
  auto weights = model_->cross_attention().at(index)[0];  // [heads, target + tag + 1, source]
  if (heads > 0) weights = weights.narrow(0, 0, std::min(heads, weights.size(0)));
  auto attention = weights.mean(0).to(torch::kCPU, torch::kFloat);
  if (target_tag_ >= 0) attention = attention.narrow(0, 1, attention.size(0) - 1);  // the row that wrote the tag
  return add_missing_ends(source_tag_ >= 0 ? fold_tag(attention) : attention, model_->config());
}

}  // namespace nmt::decode
