// A trained model directory (docs/training.md): config.json, vocab/,
// checkpoints/{last,best,average,step-N}.pt and scores.json (the final
// validation of best.pt and average.pt), decoding.json (the search the final
// validation chose), lengths.json (storage/length_profile.h). What the translator needs to run.
#pragma once

#include <optional>
#include <string>

#include <torch/types.h>

#include "model/transformer.h"
#include "storage/decoding_choice.h"
#include "storage/length_profile.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace nmt::storage {

struct ModelDirPaths {
  std::string root, config, vocab_dir, checkpoints, last, best, average, scores, decoding, lengths, metrics, log;
  explicit ModelDirPaths(const std::string& root);
  std::string step_checkpoint(int64_t step) const;
};

struct LoadedModel {
  Config config;
  model::Transformer model{nullptr};
  vocab::Vocabularies vocabs;
  std::string checkpoint_path;  // the file the weights came from
  std::string why;              // why that file, when the directory chose it
  int64_t step = 0;
  std::optional<DecodingChoice> decoding;  // DIR/decoding.json, when the trainer tuned the search
  std::optional<LengthProfile> lengths;    // DIR/lengths.json, from trainers since its format version 1
};

struct CheckpointChoice {
  std::string path, why;
};

// The checkpoint a directory offers when none is named: of best.pt and
// average.pt, the one with the better final validation score recorded in
// checkpoints/scores.json; without usable scores best.pt, else average.pt,
// else last.pt.
CheckpointChoice choose_checkpoint(const ModelDirPaths& paths);

// Loads config, vocabularies and weights: `checkpoint` when given, else
// choose_checkpoint()'s. The model is in eval mode on `device`.
// A missing directory, a checkpoint from another configuration or a corrupt
// file is a DataError naming the path.
LoadedModel load_model_dir(const std::string& dir, const std::string& checkpoint, const torch::Device& device);

}  // namespace nmt::storage
