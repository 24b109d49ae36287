// One batch's forward and backward pass, shared by the trainer and the
// training benchmarks so that what is measured is what trains.
#pragma once

#include <torch/types.h>

#include "data/batch.h"
#include "model/transformer.h"
#include "util/precision.h"

namespace nmt::train {

struct StepSettings {
  int64_t pad_id = 1;
  double label_smoothing = 0.1;
  torch::Device device{torch::kCPU};
  Precision precision = Precision::kFp32;
};

struct BatchLoss {
  torch::Tensor smoothed_sum;  // scalar, detached: the optimised loss summed over tokens
  torch::Tensor nll_sum;       // scalar, detached: plain negative log-likelihood
  int64_t tokens = 0;          // non-pad targets
};

// Runs the model on `batch` and back-propagates its label-smoothed loss
// divided by `denominator` (the step's token count, so that accumulated
// batches add up to one large batch); gradients accumulate into the
// parameters' .grad.
BatchLoss forward_backward(model::TransformerImpl& model, const data::Batch& batch, double denominator,
                           const StepSettings& settings);

}  // namespace nmt::train
