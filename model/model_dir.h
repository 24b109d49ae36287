// A trained model directory (SPEC.md, trainer output): config.json, vocab/,
// checkpoints/{last,best,step-N}.pt. What the translator needs to run.
#pragma once

#include <string>

#include <torch/types.h>

#include "model/transformer.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace nmt::model {

struct ModelDirPaths {
  std::string root, config, vocab_dir, checkpoints, last, best, metrics, log;
  explicit ModelDirPaths(const std::string& root);
  std::string step_checkpoint(int64_t step) const;
};

struct LoadedModel {
  Config config;
  Transformer model{nullptr};
  vocab::Vocabularies vocabs;
  std::string checkpoint_path;  // the file the weights came from
  int64_t step = 0;
};

// Loads config, vocabularies and weights: `checkpoint` when given, else
// best.pt when present, else last.pt. The model is in eval mode on `device`.
// A missing directory, a checkpoint from another configuration or a corrupt
// file is a DataError naming the path.
LoadedModel load_model_dir(const std::string& dir, const std::string& checkpoint, const torch::Device& device);

}  // namespace nmt::model
