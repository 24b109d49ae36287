// Data-parallel training on loopback: N ranks equal one process with N-fold
// accumulation bit for bit (also when the data end mid-step, and starting
// from rank 0's state_dict); torchrun starts a job. Failures:
// train_data_parallel_faults_test.cpp.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "storage/checkpoint.h"
#include "tests/distributed_test_util.h"

namespace nmt::test {
namespace {

using std::chrono::seconds;

TEST(DataParallel, TwoRanksEqualOneProcessWithTwofoldAccumulation) {
  TempDir dir;
  const auto config = parallel_config(dir.root(), 20);
  const std::string single = reference_run(dir, config, "single");
  const pid_t job = spawn_process(launcher_args(job_config(dir, config), dir.path("job")), {}, dir.path("job.log"));
  const Exit e = wait_with_deadline(job, seconds(300));
  ASSERT_EQ(e.code(), 0) << read_text(dir.path("job.log"));
  expect_same_weights(single, dir.path("job"));
  // Rank 0 alone logs training lines: one per log interval, with the job's size.
  const std::string metrics = read_text(dir.path("job") + "/metrics.jsonl");
  EXPECT_NE(metrics.find("\"ranks\":2"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\"allreduce_ms_per_step\""), std::string::npos);
  const std::string single_metrics = read_text(single + "/metrics.jsonl");
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), '\n'),
            std::count(single_metrics.begin(), single_metrics.end(), '\n'));
}

// Weighted corpora with a tag, and a job stopped within an epoch and resumed
// (as a job): still equal to the one process that never stopped.
TEST(DataParallel, AJobOverWeightedCorporaStoppedAndResumedEqualsOneProcess) {
  TempDir dir;
  auto config = parallel_config(dir.root(), 12);
  use_weighted_corpora(config, dir.root());
  const std::string single = reference_run(dir, config, "single");
  auto job = config;
  job["train"]["accum_steps"] = 1;
  job["train"]["threads"] = 2;
  job["train"]["max_steps"] = 5;
  write_json(dir.path("job5.json"), job);
  job["train"]["max_steps"] = 12;
  write_json(dir.path("job12.json"), job);
  const pid_t first = spawn_process(launcher_args(dir.path("job5.json"), dir.path("job")), {}, dir.path("job5.log"));
  ASSERT_EQ(wait_with_deadline(first, seconds(300)).code(), 0) << read_text(dir.path("job5.log"));
  const auto stop = storage::load_checkpoint(dir.path("job") + "/checkpoints/last.pt");
  ASSERT_EQ(stop.step(), 5);
  EXPECT_GT(stop.state["iterator"]["next_batch"].get<int64_t>(), 0) << "stopped within an epoch";
  const pid_t rest =
      spawn_process(launcher_args(dir.path("job12.json"), dir.path("job"), /*resume=*/true), {}, dir.path("job12.log"));
  ASSERT_EQ(wait_with_deadline(rest, seconds(300)).code(), 0) << read_text(dir.path("job12.log"));
  expect_same_weights(single, dir.path("job"));
}

int64_t batches_per_epoch(const std::string& log) {
  const auto at = log.find(" batches per epoch");
  if (at == std::string::npos) return -1;
  const auto start = log.rfind(' ', at - 1) + 1;
  return std::stoll(log.substr(start, at - start));
}

// When the data end mid-step (epochs reached, an odd number of batches), the
// rank whose share is empty takes part with nothing instead of hanging, and
// the job still equals the single process, whose last step is short too.
TEST(DataParallel, ARankWithoutABatchInTheLastStepJoinsWithNothing) {
  TempDir dir;
  auto config = parallel_config(dir.root(), 0);  // no step limit: the epochs end the run
  config["train"]["epochs"] = 1;
  // A budget that cuts the epoch into an odd number of batches.
  for (int budget = 160;; budget += 10) {
    ASSERT_LT(budget, 400) << "no batch budget gives an odd number of batches";
    config["train"]["batch_tokens"] = budget;
    write_json(dir.path("probe.json"), config);
    const auto probe = run_command(trainer_binary() + " --config " + dir.path("probe.json") + " --out " +
                                   dir.path("probe" + std::to_string(budget)) + " --set train.max_steps=1");
    ASSERT_EQ(probe.code, 0) << probe.output;
    if (batches_per_epoch(probe.output) % 2 == 1) break;
  }
  const std::string single = reference_run(dir, config, "single");
  const pid_t job = spawn_process(launcher_args(job_config(dir, config), dir.path("job")), {}, dir.path("job.log"));
  const Exit e = wait_with_deadline(job, seconds(300));
  ASSERT_EQ(e.code(), 0) << read_text(dir.path("job.log"));
  expect_same_weights(single, dir.path("job"));
  const auto last = storage::load_checkpoint(dir.path("job") + "/checkpoints/last.pt");
  EXPECT_EQ(last.step(), (batches_per_epoch(read_text(dir.path("job.log"))) + 1) / 2);
}

// --init-state-dict is read by rank 0 alone, whose weights every rank takes:
// rank 1 here is given a file that does not exist.
TEST(DataParallel, StartingWeightsComeFromRank0) {
  TempDir dir;
  auto config = parallel_config(dir.root(), 8);
  write_json(dir.path("pre.json"), config);
  ASSERT_EQ(run_command(trainer_binary() + " --config " + dir.path("pre.json") + " --out " + dir.path("pre")).code, 0);
  const std::string weights = dir.path("pre.pt");
  const auto exported = run_command(binary_dir() + "/translator --model " + dir.path("pre") +
                                    " --export-state-dict " + weights);
  ASSERT_EQ(exported.code, 0) << exported.output;
  config["train"]["seed"] = 99;  // another initialisation, which the state_dict replaces

  auto single = config;
  single["train"]["accum_steps"] = 2;
  single["train"]["threads"] = 1;
  write_json(dir.path("single.json"), single);
  const auto reference = run_command(trainer_binary() + " --config " + dir.path("single.json") + " --out " +
                                     dir.path("single") + " --init-state-dict " + weights);
  ASSERT_EQ(reference.code, 0) << reference.output;

  const std::string job_json = job_config(dir, config);
  const int port = distributed::free_local_port();
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    auto args = trainer_args(job_json, dir.path("job"));
    args.insert(args.end(), {"--init-state-dict", r == 0 ? weights : dir.path("absent.pt")});
    pids[r] = spawn_process(args, rank_env(r, 2, port), dir.path("rank" + std::to_string(r) + ".log"));
  }
  for (int r = 0; r < 2; ++r) {
    const Exit e = wait_with_deadline(pids[r], seconds(120));
    ASSERT_EQ(e.code(), 0) << read_text(dir.path("rank" + std::to_string(r) + ".log"));
  }
  expect_same_weights(dir.path("single"), dir.path("job"));
}

// torchrun --no_python: with its c10d rendezvous (--standalone: rank 0
// serves the store) and with its static one (the agent holds the store).
class Torchrun : public ::testing::TestWithParam<bool> {};

TEST_P(Torchrun, StartsATwoRankJobEqualToTwofoldAccumulation) {
  const bool standalone = GetParam();
  if (!std::filesystem::exists("/usr/bin/torchrun")) GTEST_SKIP() << "torchrun (python3-torch) is not installed";
  TempDir dir;
  const auto config = parallel_config(dir.root(), 12);
  const std::string single = reference_run(dir, config, "single");
  // Debian 12's torchrun (torch 1.13 on Python 3.11) cannot parse its own
  // default of --redirects 0 / --tee 0 (an IntFlag change in 3.11), hence 1.
  std::vector<std::string> args = {"/usr/bin/torchrun", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1"};
  if (standalone) {
    args.push_back("--standalone");
  } else {
    args.insert(args.end(), {"--nnodes", "1", "--master_port", std::to_string(distributed::free_local_port())});
  }
  args.push_back("--no_python");
  for (const auto& a : trainer_args(job_config(dir, config), dir.path("job"))) args.push_back(a);
  const pid_t pid = spawn_process(args, {{"OMP_NUM_THREADS", "1"}}, dir.path("torchrun.log"));
  const Exit e = wait_with_deadline(pid, seconds(300));
  const std::string log = read_text(dir.path("torchrun.log"));
  ASSERT_EQ(e.code(), 0) << log;
  // Rank 0 says whose store it joined.
  EXPECT_EQ(log.find("(torchrun's store)") != std::string::npos, !standalone) << log;
  expect_same_weights(single, dir.path("job"));
}

INSTANTIATE_TEST_SUITE_P(Rendezvous, Torchrun, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Standalone" : "AgentStore"; });

}  // namespace
}  // namespace nmt::test
