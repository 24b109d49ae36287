// What the data-parallel tests share: running trainer ranks as child
// processes (with torchrun's environment or through the launcher, each with
// its output in a file) and waiting for them with a deadline; the configs of
// a job and of the single process it must equal, and comparing their weights.
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

#include "dist/network.h"
#include "model/checkpoint.h"
#include "tests/train_test_util.h"

namespace nmt::test {

// Starts `args` (args[0] the program) with `env` added, stdout and stderr
// into `log`, in a process group of its own (so a test can kill all it started).
inline pid_t spawn_process(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                           const std::string& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  if (!std::freopen(log.c_str(), "w", stdout)) ::_exit(126);
  ::dup2(::fileno(stdout), 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  ::_exit(127);
}

// The pids whose parent is `parent` (from /proc).
inline std::vector<pid_t> child_pids(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

struct Exit {
  bool exited = false;   // false: still running at the deadline (then killed)
  int status = 0;        // waitpid's status
  double seconds = 0;    // from the call until it ended
  int code() const { return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

inline Exit wait_with_deadline(pid_t pid, std::chrono::seconds deadline) {
  Exit e;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < deadline) {
    if (::waitpid(pid, &e.status, WNOHANG) == pid) {
      e.exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!e.exited) {  // the ranks of a launcher live in process groups of their own
    for (pid_t child : child_pids(pid)) ::kill(child, SIGKILL);
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &e.status, 0);
  }
  return e;
}

// The environment torchrun gives rank `rank` of `world` on one machine.
inline std::map<std::string, std::string> rank_env(int rank, int world, int port, int local_world = -1) {
  if (local_world < 0) local_world = world;
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(rank % local_world)},
          {"LOCAL_WORLD_SIZE", std::to_string(local_world)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)}};
}

inline std::vector<std::string> trainer_args(const std::string& config, const std::string& out, bool resume = false) {
  std::vector<std::string> args = {trainer_binary(), "--config", config, "--out", out};
  if (resume) args.push_back("--resume");
  return args;
}

// Waits until `path` exists (a checkpoint, say); false at the deadline.
inline bool wait_for_file(const std::string& path, std::chrono::seconds deadline) {
  const auto start = std::chrono::steady_clock::now();
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() - start > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
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
