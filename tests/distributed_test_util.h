// What the data-parallel tests share: torchrun's environment for a rank, the
// launcher's command line, the configs of a job and of the single process it
// must equal, and comparing their weights. Processes: train_test_util.h.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "distributed/network.h"
#include "storage/checkpoint.h"
#include "tests/train_test_util.h"

namespace nmt::test {

// The environment torchrun gives rank `rank` of `world` on one machine.
inline std::map<std::string, std::string> rank_env(int rank, int world, int port) {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"LOCAL_WORLD_SIZE", std::to_string(world)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)}};
}

// fp32 and one thread per rank: the sums inside a rank's backward then run
// as in the single process; dropout stays on (its masks are seeded per batch).
inline nlohmann::json parallel_config(const std::string& dir, int max_steps) {
  auto config = tiny_training_config(dir);
  config["model"]["drop_prob"] = 0.1;
  config["train"]["precision"] = "fp32";
  config["train"]["max_steps"] = max_steps;
  config["checkpoint"]["every_steps"] = 4;
  return config;
}

// One process, accum_steps 2, one thread: what a 2-rank job must equal.
inline std::string reference_run(TempDir& dir, const nlohmann::json& config, const std::string& name) {
  auto single = config;
  single["train"]["accum_steps"] = 2;
  single["train"]["threads"] = 1;
  write_json(dir.path(name + ".json"), single);
  const pid_t pid = spawn_process(trainer_args(dir.path(name + ".json"), dir.path(name)), {}, dir.path(name + ".log"));
  const Exit e = wait_with_deadline(pid, std::chrono::seconds(300));
  EXPECT_EQ(e.code(), 0) << read_text(dir.path(name + ".log"));
  return dir.path(name);
}

// The job's config: accum_steps 1 on each rank, two threads for the
// machine (one per rank).
inline std::string job_config(TempDir& dir, const nlohmann::json& config) {
  auto job = config;
  job["train"]["accum_steps"] = 1;
  job["train"]["threads"] = 2;
  write_json(dir.path("job.json"), job);
  return dir.path("job.json");
}

inline std::vector<std::string> launcher_args(const std::string& config, const std::string& out, bool resume = false) {
  auto args = trainer_args(config, out, resume);
  args.insert(args.end(), {"--nproc-per-node", "2"});
  return args;
}

inline void expect_same_weights(const std::string& a_dir, const std::string& b_dir) {
  const auto a = storage::load_checkpoint(a_dir + "/checkpoints/last.pt");
  const auto b = storage::load_checkpoint(b_dir + "/checkpoints/last.pt");
  EXPECT_EQ(a.step(), b.step());
  EXPECT_EQ(a.state["iterator"], b.state["iterator"]);
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (const auto& [name, t] : a.weights) {
    const auto& u = b.weights.at(name);
    EXPECT_TRUE(torch::equal(t, u)) << name << " differs by up to " << (t - u).abs().max().item<double>();
  }
}

inline std::string environ_value(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  for (std::string entry; std::getline(in, entry, '\0');) {
    if (entry.rfind(key + "=", 0) == 0) return entry.substr(key.size() + 1);
  }
  return "";
}

inline pid_t rank_pid(pid_t launcher, int rank) {
  for (pid_t child : child_pids(launcher)) {
    if (environ_value(child, "RANK") == std::to_string(rank)) return child;
  }
  return -1;
}

inline std::string step_file(const std::string& out, int step) {
  char name[32];
  std::snprintf(name, sizeof(name), "step-%09d.pt", step);
  return out + "/checkpoints/" + name;
}

}  // namespace nmt::test
