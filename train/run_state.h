// Where a training run stands between steps: the step, the best validation
// score and the patience spent since it, the latched reasons to stop, and the
// run's clock across resumes. Checkpoints carry it (to_json) beside the
// weights, the optimizer, the data position and the learning-rate schedule.
#pragma once

#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace nmt::train {

struct RunState {
  int64_t step = 0;  // optimizer steps taken
  // Target tokens of every batch the job's steps took (all ranks', skipped
  // steps' included): what train.max_target_tokens counts.
  int64_t target_tokens = 0;

  // Validation: the best score so far (BLEU, higher is better, or -loss) and
  // the validations since it last improved.
  bool has_best = false;
  double best_score = 0;
  int64_t validations_without_improvement = 0;

  // Reasons to stop, latched once seen. The step that finds the time budget
  // spent is the last one, so it is validated and checkpointed as the last.
  bool early_stopped = false;
  bool budget_spent = false;
  int64_t bad_steps_in_a_row = 0;  // non-finite losses, updates skipped

  int64_t last_saved_step = -1;  // the step of the newest checkpoint on disk

  // The run's clock: training seconds before this process resumed the run,
  // of which validating; this process's share is counted from start_clock().
  double elapsed_before = 0;
  double valid_seconds = 0;

  void start_clock() { started_ = std::chrono::steady_clock::now(); }
  // Training wall time of the whole run, across resumes.
  double elapsed_seconds() const {
    return elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  // Takes a validation's score; true when it is a new best. With patience
  // > 0, that many validations in a row without a new best stop the run.
  bool record_validation(double score, int64_t patience);

  // The saved part: step, target tokens, best score, patience, clock. `elapsed` is the
  // clock to record (elapsed_seconds() once started, elapsed_before before).
  nlohmann::json to_json(double elapsed) const;
  // Restores the saved part. Checkpoints from before train.max_minutes have
  // no clock, and those from before train.max_target_tokens no token count:
  // each starts at 0.
  void restore(const nlohmann::json& saved);

 private:
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace nmt::train
