// When a training run logs, validates, checkpoints and stops, from the
// config: train.max_steps, train.epochs, train.max_minutes, train.max_target_tokens,
// train.log_every_steps, valid.every_steps, checkpoint.every_steps.
// (Early stopping's patience is counted by RunState; the learning rate's
// schedule is LrSchedule.)
#pragma once

#include <cstdint>

#include "train/run_state.h"
#include "util/config.h"

namespace nmt::train {

class RunSchedule {
 public:
  explicit RunSchedule(const Config& config)
      : train_(config.train), valid_(config.valid), checkpoint_(config.checkpoint) {}

  // Steps the run will take: train.max_steps, or the steps that train.epochs
  // of `batches_in_epoch` make at accum_steps x `ranks` batches a step
  // (the smaller of the two when both are set).
  int64_t total_steps(int64_t batches_in_epoch, int64_t ranks) const;
  // Whether the data may start epoch `epoch` (0-based); epochs 0 sets no limit.
  bool may_start_epoch(int64_t epoch) const { return train_.epochs == 0 || epoch < train_.epochs; }

  // Latches state.budget_spent once train.max_minutes have passed.
  void check_time_budget(RunState& state) const;
  // Seconds of the budget left; < 0 without one.
  double seconds_left(const RunState& state) const;
  // Whether the steps so far have taken train.max_target_tokens.
  bool tokens_spent(const RunState& state) const {
    return train_.max_target_tokens > 0 && state.target_tokens >= train_.max_target_tokens;
  }
  // A signal, an early stop, a spent budget (time or tokens) or train.max_steps.
  bool finished(const RunState& state, bool stop_requested) const;

  bool log_now(int64_t step) const { return step % train_.log_every_steps == 0; }
  // Every valid.every_steps and after the last step.
  bool validate_now(int64_t step, bool last) const { return step % valid_.every_steps == 0 || last; }
  // Every checkpoint.every_steps and whenever validation found a new best.
  bool checkpoint_now(int64_t step, bool new_best) const { return step % checkpoint_.every_steps == 0 || new_best; }

 private:
  bool out_of_time(const RunState& state) const;

  TrainConfig train_;
  ValidConfig valid_;
  CheckpointConfig checkpoint_;
};

}  // namespace nmt::train
