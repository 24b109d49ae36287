// Checkpoint averaging: exact for copies, the element-wise mean for distinct
// checkpoints (checked against a mean computed here in float64), and a clear
// error for checkpoints of different models.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data_test_util.h"
#include "model/transformer.h"
#include "storage/checkpoint_average.h"
#include "storage/state_dict.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

// A checkpoint of a freshly initialised model (seeded), as the trainer writes one.
Checkpoint make_checkpoint(const ModelConfig& config, uint64_t seed, int64_t step) {
  torch::manual_seed(seed);
  model::Transformer model(config);
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
  const Checkpoint one = make_checkpoint(test::tiny_model_config(), 1, 30);
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
  const Checkpoint a = make_checkpoint(test::tiny_model_config(), 1, 100);
  const Checkpoint b = make_checkpoint(test::tiny_model_config(), 2, 200);
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
  model::Transformer model(test::tiny_model_config());
  EXPECT_NO_THROW(load_state_dict(*model, averaged.weights, "average"));
}

TEST(CheckpointAverage, DifferentModelsAreADataErrorNamingTheFile) {
  test::TempDir dir;
  ModelConfig wider = test::tiny_model_config();
  wider.ffn_hidden = 64;  // any other width: the tensors' shapes differ
  save_checkpoint(dir.path("a.pt"), make_checkpoint(test::tiny_model_config(), 1, 1));
  save_checkpoint(dir.path("wide.pt"), make_checkpoint(wider, 1, 2));
  EXPECT_TRUE(test::throws_with<DataError>([&] { average_checkpoints({dir.path("a.pt"), dir.path("wide.pt")}); },
                                          {"wide.pt"}));
  EXPECT_THROW(average_checkpoints({}), UsageError);
  EXPECT_THROW(average_checkpoints({dir.path("missing.pt")}), DataError);
}

}  // namespace
}  // namespace nmt::storage
