// Data-parallel jobs that fail: a killed rank or job (and the exact resume
// after it), a dead peer named without a launcher, signals, torchrun's
// restarts, ranks with other data, a port in use, an unreachable master.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "storage/checkpoint.h"
#include "tests/distributed_test_util.h"

namespace nmt::test {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

// Killing one rank ends the job within the bound with its name; killing the
// whole job at a random moment loses nothing a resume needs; the resumed
// job ends where an uninterrupted one does.
TEST(DataParallel, KilledRankAndKilledJobResumeToTheUninterruptedResult) {
  TempDir dir;
  auto config = parallel_config(dir.root(), 120);
  config["checkpoint"]["keep_last"] = 1000;  // every step file stays for the waits below
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
  const unsigned seed = std::random_device()();
  std::mt19937 rng(seed);
  const int stop_after = 16 + static_cast<int>(rng() % 20) * 4;
  SCOPED_TRACE("kill seed " + std::to_string(seed) + ": after step " + std::to_string(stop_after));
  ASSERT_TRUE(wait_for_file(step_file(out, stop_after), seconds(120))) << read_text(dir.path("job2.log"));
  std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 200));
  ::kill(-job, SIGSTOP);  // freeze the launcher so that it passes nothing on
  for (pid_t child : child_pids(job)) ::kill(child, SIGKILL);
  ::kill(-job, SIGKILL);
  wait_with_deadline(job, seconds(60));
  EXPECT_LT(storage::load_checkpoint(out + "/checkpoints/last.pt").step(), 120) << "the kill came after the end";
  for (const auto& entry : fs::directory_iterator(out + "/checkpoints")) {
    std::string why;
    if (entry.path().extension() != ".pt") continue;
    EXPECT_TRUE(storage::checkpoint_is_intact(entry.path(), &why)) << entry.path() << ": " << why;
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
  const int port = distributed::free_local_port();
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
  const auto last = storage::load_checkpoint(dir.path("job") + "/checkpoints/last.pt");
  EXPECT_GT(last.step(), 0);
  EXPECT_NE(read_text(dir.path("job.log")).find("stopped by signal 15 at step " + std::to_string(last.step())),
            std::string::npos);
}

// Runs ranks 0 and 1 as attempt `restart` of torchrun job `run_id`; rank 0's exit code.
int run_torchrun_attempt(TempDir& dir, const std::string& run_id, int restart, int max_steps) {
  const int port = distributed::free_local_port();
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    auto env = rank_env(r, 2, port);
    env["TORCHELASTIC_RESTART_COUNT"] = std::to_string(restart);
    env["TORCHELASTIC_RUN_ID"] = run_id;
    auto args = trainer_args(dir.path("job.json"), dir.path("job"));
    args.insert(args.end(), {"--set", "train.max_steps=" + std::to_string(max_steps)});
    pids[r] = spawn_process(args, env, dir.path("rank" + std::to_string(r) + ".log"));
  }
  const Exit rank0 = wait_with_deadline(pids[0], seconds(120));
  wait_with_deadline(pids[1], seconds(60));
  return rank0.code();
}

// torchrun restarts failed workers (--max_restarts) with a higher
// TORCHELASTIC_RESTART_COUNT and the same command line: they resume by
// themselves, but only from their own job's checkpoints.
TEST(DataParallel, RestartedTorchrunWorkersResumeTheirOwnJobOnly) {
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 8));
  ASSERT_EQ(run_torchrun_attempt(dir, "job-a", 0, 8), 0) << read_text(dir.path("rank0.log"));
  // Another job's restart finds checkpoints it did not write: refused as without --resume.
  EXPECT_EQ(run_torchrun_attempt(dir, "job-b", 1, 12), 2);
  EXPECT_NE(read_text(dir.path("rank0.log")).find("already holds checkpoints"), std::string::npos)
      << read_text(dir.path("rank0.log"));
  ASSERT_EQ(run_torchrun_attempt(dir, "job-a", 1, 12), 0) << read_text(dir.path("rank0.log"));
  EXPECT_NE(read_text(dir.path("rank0.log")).find("resumed from step 8"), std::string::npos)
      << read_text(dir.path("rank0.log"));
  EXPECT_EQ(storage::load_checkpoint(dir.path("job") + "/checkpoints/last.pt").step(), 12);
}

TEST(DataParallel, RanksWithDifferentDataRefuseToTrain) {
  TempDir dir;
  write_json(dir.path("job.json"), parallel_config(dir.root(), 8));
  const int port = distributed::free_local_port();
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
  const int port = distributed::free_local_port();  // nobody serves it
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

}  // namespace
}  // namespace nmt::test
