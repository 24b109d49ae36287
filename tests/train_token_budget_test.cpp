// The token budget (train.max_target_tokens): the step whose batches reach
// it is the last, the count is in every metrics.jsonl record and in the
// checkpoints, and a run stopped before it and resumed ends where one
// uninterrupted run ends, bit for bit.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "storage/checkpoint.h"
#include "tests/train_test_util.h"
#include "train/trainer.h"
#include "util/error.h"

namespace nmt::train {
namespace {

TrainResult train_run(const std::string& config_path, const std::string& out, bool resume,
                  std::vector<std::string> overrides = {}) {
  TrainerOptions o = test::in_process_options(config_path, out, std::move(overrides));
  o.resume = resume;
  return run_training(o);
}

// target_tokens of each step's metrics.jsonl record, [0] = 0 (before step 1).
std::vector<int64_t> tokens_by_step(const std::string& run) {
  std::vector<int64_t> out{0};
  std::istringstream lines(test::read_text(run + "/metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record.at("type") != "train") continue;
    EXPECT_EQ(record.at("step").get<int64_t>(), static_cast<int64_t>(out.size())) << line;
    out.push_back(record.at("target_tokens").get<int64_t>());
  }
  return out;
}

class TokenBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = test::tiny_training_config(dir_.root(), /*pairs=*/80);
    config["train"]["max_steps"] = 0;  // only the epochs (and the budget) limit it
    config["train"]["epochs"] = 3;
    config["train"]["log_every_steps"] = 1;
    test::write_json(dir_.path("config.json"), config);
    // A run without a budget tells how many target tokens each step took.
    const TrainResult free = train_run(dir_.path("config.json"), dir_.path("free"), false);
    tokens_ = tokens_by_step(dir_.path("free"));
    ASSERT_EQ(static_cast<int64_t>(tokens_.size()), free.step + 1);
    ASSERT_GT(free.step, 30);
  }
  test::TempDir dir_;
  std::vector<int64_t> tokens_;
};

TEST_F(TokenBudget, TheStepThatReachesTheBudgetIsTheLast) {
  // Each step adds its batch's target tokens: what Batch::tgt_tokens counts
  // (non-padding gold cells, eos included), at most batch_tokens of them.
  for (size_t s = 1; s < tokens_.size(); ++s) {
    EXPECT_GT(tokens_[s], tokens_[s - 1]) << "step " << s;
    EXPECT_LE(tokens_[s] - tokens_[s - 1], 160) << "step " << s;
  }
  const int64_t at_20 = tokens_[20];
  // One token short of step 20's count: step 20 reaches it. Exactly its count: still 20. One more: 21.
  for (const auto& [budget, last] : {std::pair{at_20 - 1, 20}, {at_20, 20}, {at_20 + 1, 21}}) {
    const std::string out = dir_.path("budget_" + std::to_string(budget));
    const TrainResult r = train_run(dir_.path("config.json"), out, false, {"train.max_target_tokens=" + std::to_string(budget)});
    EXPECT_EQ(r.step, last) << "budget " << budget;
    const auto seen = tokens_by_step(out);
    EXPECT_EQ(seen.back(), tokens_[last]) << "budget " << budget;
    const auto saved = storage::load_checkpoint(out + "/checkpoints/last.pt");
    EXPECT_EQ(saved.step(), last);
    EXPECT_EQ(saved.state.at("target_tokens").get<int64_t>(), tokens_[last]);
  }
}

TEST_F(TokenBudget, AStopBeforeTheBudgetResumesToTheSameEnd) {
  const std::string budget = "train.max_target_tokens=" + std::to_string(tokens_[25] - 3);
  const TrainResult whole = train_run(dir_.path("config.json"), dir_.path("whole"), false, {budget});
  ASSERT_EQ(whole.step, 25);
  const TrainResult half = train_run(dir_.path("config.json"), dir_.path("split"), false, {budget, "train.max_steps=11"});
  ASSERT_EQ(half.step, 11);
  EXPECT_EQ(storage::load_checkpoint(dir_.path("split") + "/checkpoints/last.pt").state.at("target_tokens"),
            tokens_[11]);
  const TrainResult rest = train_run(dir_.path("config.json"), dir_.path("split"), true, {budget});
  EXPECT_EQ(rest.step, 25);
  EXPECT_EQ(tokens_by_step(dir_.path("split")), tokens_by_step(dir_.path("whole")));
  const auto a = storage::load_checkpoint(dir_.path("whole") + "/checkpoints/last.pt");
  const auto b = storage::load_checkpoint(dir_.path("split") + "/checkpoints/last.pt");
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (const auto& [name, t] : a.weights) EXPECT_TRUE(torch::equal(t, b.weights.at(name))) << name << " differs";
  // Resuming a run that has spent its budget trains no further.
  const TrainResult again = train_run(dir_.path("config.json"), dir_.path("split"), true, {budget});
  EXPECT_EQ(again.step, 25);
}

// lr of each step's metrics.jsonl record, [0] unused.
std::vector<double> lr_by_step(const std::string& run) {
  std::vector<double> out{0.0};
  std::istringstream lines(test::read_text(run + "/metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record.at("type") == "train") out.push_back(record.at("lr").get<double>());
  }
  return out;
}

TEST_F(TokenBudget, ACoolDownTakesTheRateToZeroWhereTheBudgetEnds) {
  const int64_t budget = tokens_[24];
  const std::string cap = "train.max_target_tokens=" + std::to_string(budget);
  train_run(dir_.path("config.json"), dir_.path("plain"), false, {cap});
  train_run(dir_.path("config.json"), dir_.path("cool"), false, {cap, "train.cooldown=0.5"});
  const auto plain = lr_by_step(dir_.path("plain"));
  const auto cool = lr_by_step(dir_.path("cool"));
  ASSERT_EQ(cool.size(), 25u);
  ASSERT_EQ(plain.size(), 25u);
  int cooled = 0;
  for (size_t s = 1; s < cool.size(); ++s) {
    // Step s's rate is scaled by the budget left before it, over the last half.
    const double spent = static_cast<double>(tokens_[s - 1]) / static_cast<double>(budget);
    const double scale = spent <= 0.5 ? 1.0 : (1.0 - spent) / 0.5;
    EXPECT_NEAR(cool[s], plain[s] * scale, 1e-12 * plain[s]) << "step " << s;
    cooled += scale < 1.0;
  }
  EXPECT_GE(cooled, 10);
  EXPECT_GT(cool.back(), 0.0);
  EXPECT_LT(cool.back(), 0.1 * plain.back());  // the last step takes about 1/24 of the budget
}

TEST(TokenBudgetConfig, ANegativeBudgetIsRefusedByName) {
  test::TempDir dir;
  test::write_json(dir.path("config.json"), test::tiny_training_config(dir.root()));
  EXPECT_TRUE(test::throws_with<UsageError>(
      [&] { train_run(dir.path("config.json"), dir.path("run"), false, {"train.max_target_tokens=-5"}); },
      {"train.max_target_tokens must not be negative", "-5"}));
}

}  // namespace
}  // namespace nmt::train
