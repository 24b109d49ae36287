// Data-parallel training on loopback: N ranks equal one process with N-fold
// accumulation bit for bit; a killed job resumes exactly; a dead rank stops
// the others with a message naming it; torchrun starts a job; rendezvous
// failures are one clear error.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/checkpoint.h"
#include "tests/dist_test_util.h"

namespace nmt::test {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

// fp32 and one thread per rank: the sums inside a rank's backward then run
// as in the single process; dropout stays on (its masks are seeded per batch).
nlohmann::json parallel_config(const std::string& dir, int max_steps) {
  auto config = tiny_training_config(dir);
  config["model"]["drop_prob"] = 0.1;
  config["train"]["precision"] = "fp32";
  config["train"]["max_steps"] = max_steps;
  config["checkpoint"]["every_steps"] = 4;
  return config;
}

// One process, accum_steps 2, one thread: what a 2-rank job must equal.
std::string reference_run(TempDir& dir, const nlohmann::json& config, const std::string& name) {
  auto single = config;
  single["train"]["accum_steps"] = 2;
  single["train"]["threads"] = 1;
  write_json(dir.path(name + ".json"), single);
  const pid_t pid = spawn_process(trainer_args(dir.path(name + ".json"), dir.path(name)), {}, dir.path(name + ".log"));
  const Exit e = wait_with_deadline(pid, seconds(300));
  EXPECT_EQ(e.code(), 0) << read_text(dir.path(name + ".log"));
  return dir.path(name);
}

// The job's config: accum_steps 1 on each rank, two threads for the
// machine (one per rank).
std::string job_config(TempDir& dir, const nlohmann::json& config) {
  auto job = config;
  job["train"]["accum_steps"] = 1;
  job["train"]["threads"] = 2;
  write_json(dir.path("job.json"), job);
  return dir.path("job.json");
}

std::vector<std::string> launcher_args(const std::string& config, const std::string& out, bool resume = false) {
  auto args = trainer_args(config, out, resume);
  args.insert(args.end(), {"--nproc-per-node", "2"});
  return args;
}

void expect_same_weights(const std::string& a_dir, const std::string& b_dir) {
  const auto a = model::load_checkpoint(a_dir + "/checkpoints/last.pt");
  const auto b = model::load_checkpoint(b_dir + "/checkpoints/last.pt");
  EXPECT_EQ(a.step(), b.step());
  EXPECT_EQ(a.state["iterator"], b.state["iterator"]);
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (const auto& [name, t] : a.weights) {
    const auto& u = b.weights.at(name);
    EXPECT_TRUE(torch::equal(t, u)) << name << " differs by up to " << (t - u).abs().max().item<double>();
  }
}

std::string environ_value(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  for (std::string entry; std::getline(in, entry, '\0');) {
    if (entry.rfind(key + "=", 0) == 0) return entry.substr(key.size() + 1);
  }
  return "";
}

pid_t rank_pid(pid_t launcher, int rank) {
  for (pid_t child : child_pids(launcher)) {
    if (environ_value(child, "RANK") == std::to_string(rank)) return child;
  }
  return -1;
}

std::string step_file(const std::string& out, int step) {
  char name[32];
  std::snprintf(name, sizeof(name), "step-%09d.pt", step);
  return out + "/checkpoints/" + name;
}

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
  const auto last = model::load_checkpoint(dir.path("job") + "/checkpoints/last.pt");
  EXPECT_EQ(last.step(), (batches_per_epoch(read_text(dir.path("job.log"))) + 1) / 2);
}

// Killing one rank ends the job within the bound with its name; killing the
// whole job at a random moment loses nothing a resume needs; the resumed
// job ends where an uninterrupted one does.
TEST(DataParallel, KilledRankAndKilledJobResumeToTheUninterruptedResult) {
  TempDir dir;
  const auto config = parallel_config(dir.root(), 120);
  const std::string single = reference_run(dir, config, "single");
  const std::string job_json = job_config(dir, config);
  const std::string out = dir.path("job");

  pid_t job = spawn_process(launcher_args(job_json, out), {}, dir.path("job1.log"));
  ASSERT_TRUE(wait_for_file(step_file(out, 8), seconds(120))) << read_text(dir.path("job1.log"));
  const pid_t rank1 = rank_pid(job, 1);
  ASSERT_GT(rank1, 0);
  ASSERT_EQ(::kill(rank1, SIGKILL), 0);
  const Exit first = wait_with_deadline(job, seconds(60));
  ASSERT_TRUE(first.exited) << "the job did not end within 60 s of rank 1's death";
  EXPECT_NE(first.code(), 0);
  const std::string log1 = read_text(dir.path("job1.log"));
  EXPECT_NE(log1.find("rank 1 (pid " + std::to_string(rank1) + ") was killed by signal 9"), std::string::npos) << log1;

  // Resume, then SIGKILL every process of the job at once, mid-run.
  job = spawn_process(launcher_args(job_json, out, true), {}, dir.path("job2.log"));
  std::mt19937 rng(7);
  const int stop_after = 16 + static_cast<int>(rng() % 20) * 4;
  if (wait_for_file(step_file(out, stop_after), seconds(120))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 200));
    ::kill(-job, SIGSTOP);  // freeze the launcher so that it passes nothing on
    for (pid_t child : child_pids(job)) ::kill(child, SIGKILL);
    ::kill(-job, SIGKILL);
  }
  wait_with_deadline(job, seconds(60));
  for (const auto& entry : fs::directory_iterator(out + "/checkpoints")) {
    std::string why;
    if (entry.path().extension() != ".pt") continue;
    EXPECT_TRUE(model::checkpoint_is_intact(entry.path(), &why)) << entry.path() << ": " << why;
  }

  job = spawn_process(launcher_args(job_json, out, true), {}, dir.path("job3.log"));
  const Exit last = wait_with_deadline(job, seconds(300));
  ASSERT_EQ(last.code(), 0) << read_text(dir.path("job3.log"));
  expect_same_weights(single, out);
}

// Without a launcher (torchrun's environment, ranks on their own) a rank
// notices a dead peer by itself, the store's host (rank 0) included.
class DeadPeer : public ::testing::TestWithParam<int> {};

TEST_P(DeadPeer, TheOtherRankExitsWithinAMinuteNamingIt) {
  const int dead = GetParam(), survivor = 1 - dead;
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 100000));
  const int port = dist::free_local_port();
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    pids[r] = spawn_process(trainer_args(dir.path("job.json"), dir.path("job")), rank_env(r, 2, port),
                            dir.path("rank" + std::to_string(r) + ".log"));
  }
  ASSERT_TRUE(wait_for_file(step_file(dir.path("job"), 8), seconds(120))) << read_text(dir.path("rank0.log"));
  ::kill(pids[dead], SIGKILL);
  const Exit e = wait_with_deadline(pids[survivor], seconds(60));
  wait_with_deadline(pids[dead], seconds(5));
  ASSERT_TRUE(e.exited) << "rank " << survivor << " still ran 60 s after rank " << dead << " died";
  EXPECT_NE(e.code(), 0);
  const std::string log = read_text(dir.path("rank" + std::to_string(survivor) + ".log"));
  EXPECT_NE(log.find("rank " + std::to_string(dead)), std::string::npos) << log;
  EXPECT_NE(log.find("--resume"), std::string::npos) << log;
  std::cerr << "rank " << survivor << " exited " << e.seconds << " s after rank " << dead << " was killed\n";
}

INSTANTIATE_TEST_SUITE_P(EitherRank, DeadPeer, ::testing::Values(0, 1));

TEST(DataParallel, SigtermToTheLauncherSavesOnceAndStopsEveryRank) {
  TempDir dir;
  auto config = parallel_config(dir.root(), 100000);
  config["checkpoint"]["every_steps"] = 100000;
  const pid_t job = spawn_process(launcher_args(job_config(dir, config), dir.path("job")), {}, dir.path("job.log"));
  const std::string metrics = dir.path("job") + "/metrics.jsonl";
  const auto deadline = std::chrono::steady_clock::now() + seconds(120);
  while (!fs::exists(metrics) || fs::file_size(metrics) == 0) {  // training has begun
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << read_text(dir.path("job.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto ranks = child_pids(job);
  ASSERT_EQ(ranks.size(), 2u);
  ::kill(job, SIGTERM);
  const Exit e = wait_with_deadline(job, seconds(60));
  ASSERT_EQ(e.code(), 0) << read_text(dir.path("job.log"));
  for (pid_t r : ranks) EXPECT_NE(::kill(r, 0), 0) << "rank pid " << r << " outlived the launcher";
  const auto last = model::load_checkpoint(dir.path("job") + "/checkpoints/last.pt");
  EXPECT_GT(last.step(), 0);
  EXPECT_NE(read_text(dir.path("job.log")).find("stopped by signal 15 at step " + std::to_string(last.step())),
            std::string::npos);
}

// torchrun restarts failed workers (--max_restarts) with a higher
// TORCHELASTIC_RESTART_COUNT and the same command line: they resume by themselves.
TEST(DataParallel, RestartedTorchrunWorkersResumeWithoutBeingTold) {
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 8));
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int port = dist::free_local_port();
    pid_t pids[2];
    for (int r = 0; r < 2; ++r) {
      auto env = rank_env(r, 2, port);
      env["TORCHELASTIC_RESTART_COUNT"] = std::to_string(attempt);
      auto args = trainer_args(dir.path("job.json"), dir.path("job"));
      if (attempt == 1) args.insert(args.end(), {"--set", "train.max_steps=12"});
      pids[r] = spawn_process(args, env, dir.path("rank" + std::to_string(r) + ".log"));
    }
    for (int r = 0; r < 2; ++r) {
      const Exit e = wait_with_deadline(pids[r], seconds(120));
      ASSERT_EQ(e.code(), 0) << read_text(dir.path("rank" + std::to_string(r) + ".log"));
    }
  }
  EXPECT_NE(read_text(dir.path("rank0.log")).find("resumed from step 8"), std::string::npos)
      << read_text(dir.path("rank0.log"));
  EXPECT_EQ(model::load_checkpoint(dir.path("job") + "/checkpoints/last.pt").step(), 12);
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
  const int port = dist::free_local_port();
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

TEST(DataParallel, RanksWithDifferentDataRefuseToTrain) {
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 8));
  const int port = dist::free_local_port();
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    auto args = trainer_args(dir.path("job.json"), dir.path("job" + std::to_string(r)));
    if (r == 1) args.insert(args.end(), {"--set", "vocab.size=50"});  // another vocabulary
    pids[r] = spawn_process(args, rank_env(r, 2, port), dir.path("rank" + std::to_string(r) + ".log"));
  }
  for (int r = 0; r < 2; ++r) {
    const Exit e = wait_with_deadline(pids[r], seconds(120));
    EXPECT_EQ(e.code(), 3) << read_text(dir.path("rank" + std::to_string(r) + ".log"));
  }
  EXPECT_NE(read_text(dir.path("rank1.log")).find("Rank 1's training data differ from rank 0's"), std::string::npos)
      << read_text(dir.path("rank1.log"));
}

TEST(DataParallel, PortInUseIsOneClearError) {
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 8));
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  const pid_t pid =
      spawn_process(trainer_args(dir.path("job.json"), dir.path("job")), rank_env(0, 2, port), dir.path("rank0.log"));
  const Exit e = wait_with_deadline(pid, seconds(60));
  ::close(listener);
  const std::string log = read_text(dir.path("rank0.log"));
  EXPECT_EQ(e.code(), 1) << log;
  EXPECT_NE(log.find("port " + std::to_string(port) + ": the port is in use"), std::string::npos) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
}

TEST(DataParallel, UnreachableMasterIsOneClearError) {
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 8));
  const int port = dist::free_local_port();  // nobody serves it
  auto env = rank_env(1, 2, port);
  env["NMT_RENDEZVOUS_TIMEOUT"] = "3";
  const pid_t pid = spawn_process(trainer_args(dir.path("job.json"), dir.path("job")), env, dir.path("rank1.log"));
  const Exit e = wait_with_deadline(pid, seconds(60));
  const std::string log = read_text(dir.path("rank1.log"));
  EXPECT_EQ(e.code(), 1) << log;
  EXPECT_NE(log.find("Rank 1 could not join the job at 127.0.0.1:" + std::to_string(port) + " within 3 s"),
            std::string::npos)
      << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
}

// torchrun --no_python: with its c10d rendezvous (--standalone: rank 0
// serves the store) and with its static one (the agent holds the store).
class Torchrun : public ::testing::TestWithParam<bool> {};

TEST_P(Torchrun, StartsATwoRankJobEqualToTwofoldAccumulation) {
  const bool standalone = GetParam();
  if (!fs::exists("/usr/bin/torchrun")) GTEST_SKIP() << "torchrun (python3-torch) is not installed";
  TempDir dir;
  const auto config = parallel_config(dir.root(), 12);
  const std::string single = reference_run(dir, config, "single");
  // Debian 12's torchrun (torch 1.13 on Python 3.11) cannot parse its own
  // default of --redirects 0 / --tee 0 (an IntFlag change in 3.11), hence 1.
  std::vector<std::string> args = {"/usr/bin/torchrun", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1"};
  if (standalone) {
    args.push_back("--standalone");
  } else {
    args.insert(args.end(), {"--nnodes", "1", "--master_port", std::to_string(dist::free_local_port())});
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
