// Running trainer ranks as child processes for the data-parallel tests:
// with torchrun's environment or through the launcher, each with its output
// in a file, and waiting for them with a deadline.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "dist/network.h"
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
  if (!e.exited) {
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

// Waits until `path` exists (a checkpoint, say); false at the deadline.
inline bool wait_for_file(const std::string& path, std::chrono::seconds deadline) {
  const auto start = std::chrono::steady_clock::now();
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() - start > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace nmt::test
