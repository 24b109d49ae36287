// A tiny training set-up for trainer tests: toy corpus, small config, and
// ways to run the trainer executable: to completion collecting its exit code
// and output, or in the background (killed, waited for with a deadline).
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

#include <nlohmann/json.hpp>

#include "data_test_util.h"
#include "storage/checkpoint.h"
#include "tests/test_support.h"
#include "train/trainer.h"

namespace nmt::test {

// Writes train/valid toy corpora into `dir` and returns a config for a tiny
// model that trains in a second or two on one thread.
inline nlohmann::json tiny_training_config(const std::string& dir, int pairs = 160) {
  std::vector<std::string> en, de;
  make_toy_corpus(pairs + 20, en, de);
  std::vector<std::string> train_en(en.begin(), en.begin() + pairs), train_de(de.begin(), de.begin() + pairs);
  std::vector<std::string> valid_en(en.begin() + pairs, en.end()), valid_de(de.begin() + pairs, de.end());
  write_file(dir + "/train.en", join_lines(train_en));
  write_file(dir + "/train.de", join_lines(train_de));
  write_file(dir + "/valid.en", join_lines(valid_en));
  write_file(dir + "/valid.de", join_lines(valid_de));
  return nlohmann::json{
      {"data",
       {{"train_src", dir + "/train.en"},
        {"train_tgt", dir + "/train.de"},
        {"valid_src", dir + "/valid.en"},
        {"valid_tgt", dir + "/valid.de"},
        {"max_len", 64}}},
      {"vocab", {{"size", 60}, {"type", "bpe"}, {"joint", true}}},
      {"model", {{"d_model", 16}, {"n_head", 2}, {"ffn_hidden", 32}, {"n_layers", 1}, {"max_len", 80}}},
      {"train",
       {{"batch_tokens", 160},
        {"epochs", 50},
        {"max_steps", 12},
        {"lr", 2.0},
        {"warmup_steps", 10},
        {"threads", 1},
        {"seed", 7},
        {"log_every_steps", 5}}},
      {"checkpoint", {{"every_steps", 3}, {"keep_last", 2}}},
      {"valid", {{"every_steps", 1000}, {"bleu", false}}}};
}

inline void write_json(const std::string& path, const nlohmann::json& j) { write_file(path, j.dump(2)); }
inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

// Options to run the trainer in this process (train::run_training), with no live progress line.
inline train::TrainerOptions in_process_options(const std::string& config_path, const std::string& out,
                                                std::vector<std::string> overrides = {}) {
  train::TrainerOptions o;
  o.config_path = config_path;
  o.out_dir = out;
  o.overrides = std::move(overrides);
  o.progress_on_terminal = false;
  return o;
}

// Turns a tiny_training_config of `dir` into one over two corpora: its
// training pairs (weight 1) and 60 other toy pairs marked as
// back-translations (tag "<BT>", weight 0.5).
inline void use_weighted_corpora(nlohmann::json& config, const std::string& dir) {
  std::vector<std::string> en, de;
  make_toy_corpus(400, en, de);  // the first 180 are tiny_training_config's
  write_file(dir + "/bt.en", join_lines(std::vector<std::string>(en.end() - 60, en.end())));
  write_file(dir + "/bt.de", join_lines(std::vector<std::string>(de.end() - 60, de.end())));
  auto& data = config["data"];
  data["corpora"] = nlohmann::json::array(
      {{{"src", data["train_src"]}, {"tgt", data["train_tgt"]}},
       {{"src", dir + "/bt.en"}, {"tgt", dir + "/bt.de"}, {"weight", 0.5}, {"tag", "<BT>"}}});
  data.erase("train_src");
  data.erase("train_tgt");
}

inline std::string trainer_binary() { return binary_dir() + "/trainer"; }

inline std::vector<std::string> trainer_args(const std::string& config, const std::string& out, bool resume = false) {
  std::vector<std::string> args = {trainer_binary(), "--config", config, "--out", out};
  if (resume) args.push_back("--resume");
  return args;
}

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
