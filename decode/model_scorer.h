// The Transformer as a StepScorer for one batch of sources: encodes them once,
// then scores prefixes either incrementally (key/value cache, one new position
// per step) or by recomputing the whole prefix (the reference path).
#pragma once

#include <optional>
#include <vector>

#include "decode/step_scorer.h"
#include "kernels/attention_cache.h"
#include "kernels/decoder_step.h"
#include "model/transformer.h"

namespace nmt::decode {

class ModelScorer : public StepScorer {
 public:
  // src: [batch, src_len] ids, sos/eos-wrapped and padded with the model's
  // src_pad_idx; moved to the model's device. Rows start as one per sentence.
  // The model should be in eval mode and the caller under a NoGradGuard.
  // `coverage_layer` (0-based, or -1 for none): the decoder layer whose
  // cross-attention coverage() reports; tracked on the cached path only.
  ModelScorer(model::TransformerImpl& model, const torch::Tensor& src, bool cached, int64_t coverage_layer = -1);

  torch::Tensor next_log_probs(const torch::Tensor& prefixes) override;
  void select_rows(const torch::Tensor& index) override;
  std::vector<float> coverage(int64_t row) const override;

 private:
  model::TransformerImpl& model_;
  bool cached_;
  torch::Device device_;
  // Memory rows still needed for `picked` (the rows select_rows keeps).
  void select_memory(const std::vector<int64_t>& picked);

  // Encoder output, source mask and cross-attention keys/values: one memory
  // row per sentence, shared by the decoder rows of its beams (the decoder's
  // rows come in equal groups, one per memory row), except on the full-prefix
  // path or after an irregular selection, where there is one per decoder row.
  torch::Tensor enc_, src_mask_;
  int64_t rows_ = 0;  // live decoder rows
  kernels::DecoderCache cache_;
  kernels::DecoderStep step_;  // the fused step, where the decoder can take it (DecoderImpl::step_weights)
  // What the fused step reads of the decoder, asked for once per scorer (the
  // weights stay put while a batch decodes): nullopt where it cannot run.
  const std::optional<kernels::DecoderStepWeights>& step_weights();
  bool step_weights_asked_ = false;
  std::optional<kernels::DecoderStepWeights> step_weights_;
  int64_t coverage_layer_ = -1;  // an index into cache_.layers, or -1
};

}  // namespace nmt::decode
