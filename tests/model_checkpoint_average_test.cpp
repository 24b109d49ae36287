// Checkpoint averaging: exact for copies, the element-wise mean for distinct
// checkpoints (checked against a mean computed here in float64), and a clear
// error for checkpoints of different models.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data_test_util.h"
#include "model/checkpoint_average.h"
#include "model/state_dict.h"
#include "model/transformer.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"

namespace nmt::model {
namespace {

ModelConfig tiny_model() {
  ModelConfig c;
  c.d_model = 16;
  c.n_head = 2;
  c.ffn_hidden = 24;
  c.n_layers = 1;
  c.max_len = 32;
  c.enc_voc_size = 20;
  c.dec_voc_size = 20;
  return c;
}

// A checkpoint of a freshly initialised model (seeded), as the trainer writes one.
Checkpoint make_checkpoint(const ModelConfig& config, uint64_t seed, int64_t step) {
  torch::manual_seed(seed);
  Transformer model(config);
  init_weights_like_reference(*model);
  Checkpoint c;
  c.config = {{"model", model_config_to_json(config)}};
  c.weights = state_dict_of(*model);
  c.state = {{"step", step}};
  c.optimizer = "optimizer bytes";
  return c;
}

TEST(CheckpointAverage, CopiesOfOneCheckpointGiveItBackExactly) {
  test::TempDir dir;
  const Checkpoint one = make_checkpoint(tiny_model(), 1, 30);
  std::vector<std::string> paths;
  for (const char* name : {"a.pt", "b.pt", "c.pt", "d.pt", "e.pt"}) {
    save_checkpoint(dir.path(name), one);
    paths.push_back(dir.path(name));
  }
  const Checkpoint averaged = average_checkpoints(paths);
  ASSERT_EQ(averaged.weights.size(), one.weights.size());
  for (const auto& [name, tensor] : one.weights) {
    const torch::Tensor& got = averaged.weights.at(name);
    EXPECT_EQ(got.scalar_type(), tensor.scalar_type()) << name;
    EXPECT_TRUE(torch::equal(got, tensor)) << name;
  }
}

TEST(CheckpointAverage, TwoCheckpointsGiveTheirMean) {
  test::TempDir dir;
  const Checkpoint a = make_checkpoint(tiny_model(), 1, 100), b = make_checkpoint(tiny_model(), 2, 200);
  save_checkpoint(dir.path("a.pt"), a);
  save_checkpoint(dir.path("b.pt"), b);
  const Checkpoint averaged = average_checkpoints({dir.path("b.pt"), dir.path("a.pt")});
  for (const auto& [name, ta] : a.weights) {
    const auto expected = ((ta.to(torch::kDouble) + b.weights.at(name).to(torch::kDouble)) / 2).to(torch::kFloat);
    EXPECT_TRUE(test::tensors_close(averaged.weights.at(name), expected, 0, 0)) << name;
  }
  // The newest's progress and config, the steps averaged, nothing to resume from.
  EXPECT_EQ(averaged.step(), 200);
  EXPECT_EQ(averaged.state.at("averaged_steps"), nlohmann::json({200, 100}));
  EXPECT_TRUE(averaged.optimizer.empty());
  EXPECT_EQ(averaged.config, b.config);
  // The tied/shared names stay identical, so the result loads into the model.
  Transformer model(tiny_model());
  EXPECT_NO_THROW(load_state_dict(*model, averaged.weights, "average"));
}

TEST(CheckpointAverage, DifferentModelsAreADataErrorNamingTheFile) {
  test::TempDir dir;
  ModelConfig wider = tiny_model();
  wider.ffn_hidden = 32;
  save_checkpoint(dir.path("a.pt"), make_checkpoint(tiny_model(), 1, 1));
  save_checkpoint(dir.path("wide.pt"), make_checkpoint(wider, 1, 2));
  try {
    average_checkpoints({dir.path("a.pt"), dir.path("wide.pt")});
    FAIL() << "expected a DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("wide.pt"), std::string::npos) << e.what();
  }
  EXPECT_THROW(average_checkpoints({}), UsageError);
  EXPECT_THROW(average_checkpoints({dir.path("missing.pt")}), DataError);
}

}  // namespace
}  // namespace nmt::model
