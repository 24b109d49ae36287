// Validation loss and perplexity over the fixed validation batches.
#pragma once

#include <vector>

#include <torch/types.h>

#include "data/batch.h"
#include "model/transformer.h"
#include "util/config.h"
#include "util/precision.h"

namespace nmt::train {

struct ValidationResult {
  double loss = 0;  // mean token negative log-likelihood (no smoothing)
  double ppl = 0;
  double bleu = 0;
  int64_t tokens = 0;
};

ValidationResult run_validation(model::TransformerImpl& model, const std::vector<data::Batch>& batches,
                                const Config& config, const torch::Device& device, Precision precision);

}  // namespace nmt::train
