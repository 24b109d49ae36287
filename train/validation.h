// Validation on the held-out set: loss and perplexity over its fixed
// batches, and BLEU of its decoded sentences (valid.bleu).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "data/batch.h"
#include "data/parallel_reader.h"
#include "model/transformer.h"
#include "util/config.h"
#include "util/precision.h"
#include "vocab/vocabularies.h"

namespace nmt::train {

struct ValidationResult {
  double loss = 0;  // mean token negative log-likelihood (no smoothing)
  double ppl = 0;
  double bleu = 0;  // when valid.bleu
  int64_t tokens = 0;
  double score = 0;  // what "best" compares: BLEU when valid.bleu, else -loss
};

ValidationResult run_validation(model::TransformerImpl& model, const std::vector<data::Batch>& batches,
                                const Config& config, const torch::Device& device, Precision precision);

// The validation set of a run and what scores the model on it. The raw
// sentences for BLEU are read on first use.
class Validator {
 public:
  Validator(const Config& config, std::vector<data::Batch> batches);

  // No validation data: nothing to validate.
  bool empty() const { return batches_.empty(); }
  size_t batches() const { return batches_.size(); }

  // Loss and perplexity, and BLEU decoding with `beam` when valid.bleu. The
  // model is left in whatever mode the caller set (eval, for dropout off).
  ValidationResult validate(model::Transformer model, const vocab::Vocabularies& vocabs,
                            const torch::Device& device, Precision precision, int64_t beam);

  // BLEU of the validation set decoded with this beam and length penalty
  // (at most valid.max_sentences of it).
  double decode_bleu(model::Transformer model, const vocab::Vocabularies& vocabs, Precision precision,
                     int64_t beam, double length_penalty);
  // The coverage check's threshold learned on the validation set decoded
  // with this beam and length penalty (decode/coverage_check.h), and the
  // sentences it was learned from.
  std::pair<double, int64_t> learn_coverage_threshold(model::Transformer model, const vocab::Vocabularies& vocabs,
                                                      Precision precision, int64_t beam, double length_penalty);

 private:
  const Config& config_;
  std::vector<data::Batch> batches_;
  std::string source_tag_;  // the validation pair's language tag; empty: an untagged model
  const data::ParallelLines& lines();  // read on first use
  std::optional<data::ParallelLines> lines_;  // raw text for BLEU
};

}  // namespace nmt::train
