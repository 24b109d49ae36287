// A model directory as the trainer leaves it (config.json, vocab/,
// checkpoints/last.pt), with random weights: real vocabulary and decoding,
// made in a second.
#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "model/transformer.h"
#include "storage/checkpoint.h"
#include "storage/state_dict.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace nmt::test {

// Trained on a toy de->en corpus in `dir` (train.de, train.en); the model
// directory is `model_dir`.
inline void make_random_model_dir(const TempDir& dir, const std::string& model_dir) {
  Config c = toy_corpus_config(dir, 300);
  c.model = tiny_model_config(/*max_len=*/40);  // its vocabulary sizes: the trained vocabulary's, below
  const auto vocabs = vocab::prepare_vocabularies(c, model_dir);
  c.model.enc_voc_size = c.model.dec_voc_size = vocabs.src->size();
  write_file(model_dir + "/config.json", config_to_json(c).dump(2));
  torch::manual_seed(7);
  model::Transformer m(c.model);
  model::init_weights_like_reference(*m);
  storage::Checkpoint ck;
  ck.config = config_to_json(c);
  ck.weights = storage::state_dict_of(*m);
  ck.state = {{"step", 1}, {"epoch", 0}};
  std::filesystem::create_directories(model_dir + "/checkpoints");
  storage::save_checkpoint(model_dir + "/checkpoints/last.pt", ck);
}

// A test suite sharing one random model directory, made once per suite.
class RandomModelDirTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    make_random_model_dir(*dir_, model_dir());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string model_dir() { return dir_->path("model"); }
  static inline TempDir* dir_ = nullptr;
};

}  // namespace nmt::test
