// Progress of a long run: a line redrawn in place on a terminal (step, loss,
// tokens/s, ETA), plain log lines every few steps otherwise.
#pragma once

#include <chrono>
#include <string>

#include <spdlog/logger.h>

namespace nmt::train {

struct ProgressSnapshot {
  int64_t step = 0, total_steps = 0, epoch = 0;
  double loss = 0, lr = 0, tokens_per_s = 0;
  double seconds_left = -1;  // of a time budget (train.max_minutes); < 0: none
  int64_t target_tokens = 0;      // taken by the run's steps so far
  int64_t max_target_tokens = 0;  // the token budget; 0: none
};

class Progress {
 public:
  Progress(std::shared_ptr<spdlog::logger> logger, bool terminal);

  // Called every step; draws on a terminal, logs every `log_every` steps otherwise.
  void update(const ProgressSnapshot& s, bool log_line);
  // Clears the live line so that a log message starts on a clean line.
  void clear();

 private:
  std::string format(const ProgressSnapshot& s) const;

  std::shared_ptr<spdlog::logger> logger_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  int64_t first_step_ = -1;
  int64_t first_tokens_ = 0;  // target tokens when this process's first step ended
};

}  // namespace nmt::train
