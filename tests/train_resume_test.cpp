// Exact resume: N steps in one run equal N/2 steps, a stop, and a resumed
// run to N, bit for bit on the CPU with the same thread count; also when the
// process is killed with SIGKILL at random moments.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "storage/checkpoint.h"
#include "tests/train_test_util.h"
#include "train/trainer.h"
#include "util/error.h"

namespace nmt::train {
namespace {

namespace fs = std::filesystem;

storage::StateDict final_weights(const std::string& out) {
  return storage::load_checkpoint(out + "/checkpoints/last.pt").weights;
}

void expect_identical(const storage::StateDict& a, const storage::StateDict& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) EXPECT_TRUE(torch::equal(t, b.at(name))) << name << " differs";
}

TrainResult train(const std::string& config_path, const std::string& out, bool resume,
                  std::vector<std::string> overrides = {}) {
  TrainerOptions o = test::in_process_options(config_path, out, std::move(overrides));
  o.resume = resume;
  return run_training(o);
}

// (accumulation steps, precision): bf16 autocast keeps exact resume too, with
// the same thread count.
class ExactResume : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(ExactResume, HalfThenResumeEqualsOneRun) {
  const auto& [accum_steps, precision] = GetParam();
  if (precision == "bf16" && !at::hasMKLDNN()) GTEST_SKIP() << "LibTorch without oneDNN: no CPU bf16";
  test::TempDir dir;
  auto config = test::tiny_training_config(dir.root(), /*pairs=*/80);
  config["train"]["accum_steps"] = accum_steps;
  config["train"]["precision"] = precision;
  config["train"]["max_steps"] = 30;
  test::write_json(dir.path("config.json"), config);

  auto whole = train(dir.path("config.json"), dir.path("whole"), false);
  ASSERT_EQ(whole.step, 30);
  auto half = train(dir.path("config.json"), dir.path("split"), false, {"train.max_steps=13"});
  ASSERT_EQ(half.step, 13);
  // Step 13 is not a multiple of checkpoint.every_steps: the stop itself saved,
  // and it fell mid-epoch.
  auto stop = storage::load_checkpoint(dir.path("split") + "/checkpoints/last.pt");
  EXPECT_EQ(stop.step(), 13);
  EXPECT_GT(stop.state["iterator"]["next_batch"].get<int64_t>(), 0);
  auto rest = train(dir.path("config.json"), dir.path("split"), true);
  ASSERT_EQ(rest.step, 30);
  EXPECT_GT(whole.epoch, half.epoch) << "the run should cross an epoch boundary after the resume point";
  expect_identical(final_weights(dir.path("whole")), final_weights(dir.path("split")));
  // The data position matches too. (Optimizer archives are not compared as
  // bytes: libtorch keys them by parameter addresses.)
  auto a = storage::load_checkpoint(dir.path("whole") + "/checkpoints/last.pt");
  auto b = storage::load_checkpoint(dir.path("split") + "/checkpoints/last.pt");
  EXPECT_EQ(a.state["iterator"], b.state["iterator"]);
}

INSTANTIATE_TEST_SUITE_P(AccumulationAndPrecision, ExactResume,
                         ::testing::Combine(::testing::Values(1, 3), ::testing::Values("fp32", "bf16")));

// Two corpora with weights and a tag: stopped mid-epoch and resumed, the
// same run, and the pairs seen of each corpus go on from where they were.
TEST(ExactResume, HalfThenResumeEqualsOneRunOverWeightedCorpora) {
  test::TempDir dir;
  auto config = test::tiny_training_config(dir.root(), /*pairs=*/80);
  test::use_weighted_corpora(config, dir.root());
  config["train"]["max_steps"] = 24;
  test::write_json(dir.path("config.json"), config);
  train(dir.path("config.json"), dir.path("whole"), false);
  train(dir.path("config.json"), dir.path("split"), false, {"train.max_steps=11"});
  const auto stop = storage::load_checkpoint(dir.path("split") + "/checkpoints/last.pt");
  EXPECT_GT(stop.state["iterator"]["next_batch"].get<int64_t>(), 0) << "a stop within an epoch";
  train(dir.path("config.json"), dir.path("split"), true);
  expect_identical(final_weights(dir.path("whole")), final_weights(dir.path("split")));
  auto a = storage::load_checkpoint(dir.path("whole") + "/checkpoints/last.pt");
  auto b = storage::load_checkpoint(dir.path("split") + "/checkpoints/last.pt");
  EXPECT_EQ(a.state["iterator"], b.state["iterator"]);
  const auto seen = a.state["iterator"]["pairs_seen"].get<std::vector<int64_t>>();
  ASSERT_EQ(seen.size(), 2u);
  // About the weights' 2:1 in the pairs trained on (quotas 93 and 47 of each
  // 140-pair epoch; the run ends within its second epoch, a random part of it).
  const double ratio = static_cast<double>(seen[0]) / static_cast<double>(seen[1]);
  EXPECT_GT(ratio, 1.4);
  EXPECT_LT(ratio, 2.8);
}

TEST(ExactResume, ResumeWithAnotherModelConfigIsRefused) {
  test::TempDir dir;
  test::write_json(dir.path("config.json"), test::tiny_training_config(dir.root()));
  train(dir.path("config.json"), dir.path("run"), false, {"train.max_steps=3"});
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] { train(dir.path("config.json"), dir.path("run"), true, {"model.d_model=32", "model.ffn_hidden=64"}); },
      {"another model configuration"}))
      << "resume with another model configuration must fail";
}

TEST(ExactResume, WithoutResumeAnExistingRunIsNotOverwritten) {
  test::TempDir dir;
  test::write_json(dir.path("config.json"), test::tiny_training_config(dir.root()));
  train(dir.path("config.json"), dir.path("run"), false, {"train.max_steps=3"});
  EXPECT_THROW(train(dir.path("config.json"), dir.path("run"), false), UsageError);
}

// Starts the trainer executable (its output discarded) and returns its pid.
pid_t spawn_trainer(const std::string& config, const std::string& out, bool resume) {
  return test::spawn_process(test::trainer_args(config, out, resume), {}, "/dev/null");
}

int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(KilledTraining, RandomSigkillsThenResumeEqualsOneRun) {
  if (!fs::exists(test::trainer_binary())) GTEST_SKIP() << "trainer executable not built";
  test::TempDir dir;
  auto config = test::tiny_training_config(dir.root());
  config["train"]["max_steps"] = 150;
  config["train"]["accum_steps"] = 2;
  config["checkpoint"]["every_steps"] = 4;
  test::write_json(dir.path("config.json"), config);

  // The uninterrupted run also tells how long a whole run takes, so the kills land inside one.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_for(spawn_trainer(dir.path("config.json"), dir.path("whole"), false)), 0);
  const double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> moment(0.1, std::max(0.3, 0.8 * run_seconds));
  int kills = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    pid_t pid = spawn_trainer(dir.path("config.json"), dir.path("killed"), attempt > 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(moment(rng)));
    if (::kill(pid, SIGKILL) == 0) ++kills;
    wait_for(pid);
    // Whatever is on disk now must read back intact or be absent.
    for (const auto& entry : fs::directory_iterator(dir.path("killed") + "/checkpoints")) {
      if (entry.path().extension() != ".pt") continue;
      std::string why;
      EXPECT_TRUE(storage::checkpoint_is_intact(entry.path().string(), &why)) << entry.path() << ": " << why;
    }
  }
  EXPECT_GT(kills, 0);
  ASSERT_EQ(wait_for(spawn_trainer(dir.path("config.json"), dir.path("killed"), true)), 0);
  expect_identical(final_weights(dir.path("whole")), final_weights(dir.path("killed")));
}

TEST(KilledTraining, SigtermSavesAndExitsCleanly) {
  if (!fs::exists(test::trainer_binary())) GTEST_SKIP() << "trainer executable not built";
  test::TempDir dir;
  auto config = test::tiny_training_config(dir.root());
  config["train"]["max_steps"] = 100000;
  config["checkpoint"]["every_steps"] = 100000;
  test::write_json(dir.path("config.json"), config);
  pid_t pid = spawn_trainer(dir.path("config.json"), dir.path("run"), false);
  // Wait until training runs (metrics appear), then ask it to stop.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir.path("run") + "/metrics.jsonl") || fs::file_size(dir.path("run") + "/metrics.jsonl") == 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "trainer never started training";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGTERM);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFEXITED(status)) << "trainer died from a signal instead of exiting";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto last = storage::load_checkpoint(dir.path("run") + "/checkpoints/last.pt");
  EXPECT_GT(last.step(), 0);
}

}  // namespace
}  // namespace nmt::train
