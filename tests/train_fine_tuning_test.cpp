// trainer --init-from: a new run from a finished one equals starting by hand
// from its weights and vocabulary; changes of shape or vocabulary are
// refused by name; --init-keep-optimizer goes on with its optimizer and step;
// --init-from may name one checkpoint of a run instead of the run.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "storage/checkpoint.h"
#include "storage/model_dir.h"
#include "storage/state_dict.h"
#include "tests/train_test_util.h"
#include "train/trainer.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::train {
namespace {

TrainResult train(const std::string& config_path, const std::string& out, const std::string& init_from,
                  std::vector<std::string> overrides = {}, bool keep_optimizer = false) {
  TrainerOptions o = test::in_process_options(config_path, out, std::move(overrides));
  o.init_from = init_from;
  o.init_keep_optimizer = keep_optimizer;
  return run_training(o);
}

class FineTuning : public ::testing::Test {
 protected:
  void SetUp() override {
    auto base = test::tiny_training_config(dir_.root(), 80);
    base["train"]["max_steps"] = 6;
    test::write_json(dir_.path("base.json"), base);
    train(dir_.path("base.json"), dir_.path("base"), "");
    // New data (the back-translation pairs as plain in-domain data), other
    // training settings, and no model or vocabulary section: those come from the run.
    auto tuned = base;
    test::use_weighted_corpora(tuned, dir_.root());
    tuned["data"]["corpora"][1].erase("tag");
    tuned["train"]["max_steps"] = 5;
    tuned["train"]["lr"] = 0.5;
    tuned.erase("model");
    tuned.erase("vocab");
    tuned_ = tuned;
    test::write_json(dir_.path("tuned.json"), tuned);
  }
  // The tuned config trained by hand from `checkpoint`'s weights: the run's
  // vocabulary as vocab.model, its model section, the weights as a state_dict.
  void train_by_hand(const std::string& checkpoint, const std::string& out) {
    storage::write_state_dict_file(dir_.path("start.pt"), storage::load_checkpoint(checkpoint).weights);
    auto by_hand = tuned_;
    by_hand["model"] = test::read_json(dir_.path("base/config.json"))["model"];
    by_hand["vocab"] = {{"model", dir_.path("base/vocab/spm.model")}};
    test::write_json(dir_.path("by_hand.json"), by_hand);
    TrainerOptions o = test::in_process_options(dir_.path("by_hand.json"), out);
    o.init_state_dict = dir_.path("start.pt");
    run_training(o);
  }
  void expect_same_weights(const std::string& a_path, const std::string& b_path) {
    const auto a = storage::load_checkpoint(a_path);
    const auto b = storage::load_checkpoint(b_path);
    ASSERT_EQ(a.weights.size(), b.weights.size());
    for (const auto& [name, t] : a.weights) EXPECT_TRUE(torch::equal(t, b.weights.at(name))) << name;
  }
  test::TempDir dir_;
  nlohmann::json tuned_;
};

TEST_F(FineTuning, EqualsStartingByHandFromTheRunsWeightsAndVocabulary) {
  const TrainResult r = train(dir_.path("tuned.json"), dir_.path("ft"), dir_.path("base"));
  EXPECT_EQ(r.step, 5) << "a fresh run: its own step count";

  const auto chosen = storage::choose_checkpoint(storage::ModelDirPaths(dir_.path("base")));
  train_by_hand(chosen.path, dir_.path("hand"));
  expect_same_weights(dir_.path("ft/checkpoints/last.pt"), dir_.path("hand/checkpoints/last.pt"));
  const auto a = storage::load_checkpoint(dir_.path("ft/checkpoints/last.pt"));
  const auto start = storage::load_checkpoint(chosen.path);
  EXPECT_FALSE(torch::equal(a.weights.begin()->second, start.weights.at(a.weights.begin()->first))) << "it trained";
  // The new directory stands alone: the run's vocabulary and shape are in it.
  EXPECT_EQ(read_file_bytes(dir_.path("ft/vocab/spm.model")), read_file_bytes(dir_.path("base/vocab/spm.model")));
  EXPECT_EQ(test::read_json(dir_.path("ft/config.json"))["model"]["d_model"], 16);
}

TEST_F(FineTuning, ChangesOfShapeOrVocabularyAreRefusedByName) {
  EXPECT_TRUE(test::throws_with<UsageError>(
      [&] {
        train(dir_.path("tuned.json"), dir_.path("x"), dir_.path("base"), {"model.d_model=32", "vocab.size=80"});
      },
      {"model.d_model is 16 there, 32 here", "vocab.size is 60 there, 80 here", "--init-from"}));
  EXPECT_FALSE(std::filesystem::exists(dir_.path("x/checkpoints")));
  // Dropout is no part of the shape.
  EXPECT_EQ(train(dir_.path("tuned.json"), dir_.path("y"), dir_.path("base"), {"model.drop_prob=0.3"}).step, 5);
  EXPECT_TRUE(test::throws_with<UsageError>([&] { train(dir_.path("tuned.json"), dir_.path("z"), dir_.path("none")); },
                                            {dir_.path("none"), "finished run"}));
}

TEST_F(FineTuning, KeepingTheOptimizerGoesOnFromTheRunsStep) {
  const TrainResult r = train(dir_.path("tuned.json"), dir_.path("keep"), dir_.path("base"), {"train.max_steps=10"},
                              /*keep_optimizer=*/true);
  EXPECT_EQ(r.step, 10) << "steps 7 to 10 after the run's 6";
  const std::string log = test::read_text(dir_.path("keep/train.log"));
  EXPECT_NE(log.find("its optimizer and schedule at step 6"), std::string::npos) << log;
}

TEST_F(FineTuning, StartsFromANamedCheckpointOfTheRun) {
  // The base run kept steps 3 and 6 (every 3 steps, the last 2); step 3 is not the run's own choice.
  const std::string named = dir_.path("base/checkpoints/step-000000003.pt");
  ASSERT_TRUE(std::filesystem::exists(named));
  ASSERT_NE(storage::choose_checkpoint(storage::ModelDirPaths(dir_.path("base"))).path, named);
  EXPECT_EQ(train(dir_.path("tuned.json"), dir_.path("named"), named).step, 5);
  train_by_hand(named, dir_.path("hand3"));
  expect_same_weights(dir_.path("named/checkpoints/last.pt"), dir_.path("hand3/checkpoints/last.pt"));
  const std::string log = test::read_text(dir_.path("named/train.log"));
  EXPECT_NE(log.find("weights from " + named + " (the checkpoint named)"), std::string::npos) << log;
  EXPECT_EQ(read_file_bytes(dir_.path("named/vocab/spm.model")), read_file_bytes(dir_.path("base/vocab/spm.model")));

  // A file that is no run's checkpoint is refused by name, before anything is written.
  std::filesystem::copy_file(named, dir_.path("loose.pt"));
  EXPECT_TRUE(
      test::throws_with<UsageError>([&] { train(dir_.path("tuned.json"), dir_.path("w"), dir_.path("loose.pt")); },
                                    {dir_.path("loose.pt"), "checkpoints/"}));
  EXPECT_FALSE(std::filesystem::exists(dir_.path("w/checkpoints")));
}

}  // namespace
}  // namespace nmt::train
