// A tiny training set-up for trainer tests: toy corpus, small config, and a
// way to run the trainer executable and collect its exit code and output.
#pragma once

#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "data_test_util.h"
#include "model/checkpoint.h"
#include "tests/test_support.h"

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

struct CommandResult {
  int code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` through the shell, capturing stdout and stderr.
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string trainer_binary() { return binary_dir() + "/trainer"; }

}  // namespace nmt::test
