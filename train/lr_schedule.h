// Learning-rate schedules: the paper's warm-up (noam), inverse_sqrt (linear
// warm-up to train.lr, then lr * sqrt(warmup / step), as fairseq), the
// reference's reduce-on-plateau, and constant. Their state travels in checkpoints.
// Any of them may end in a cool-down (train.cooldown): over the last share of
// a budget known in advance, the rate falls linearly to zero, as in the
// warm-up/stable/decay schedules that match cosine at any length.
#pragma once

#include <nlohmann/json.hpp>

#include "util/config.h"

namespace nmt::train {

class LrSchedule {
 public:
  LrSchedule(const TrainConfig& config, int64_t d_model);

  // Learning rate for optimizer step `step` (1-based); `spent` is the share
  // of the run's budget used before that step (budget_spent), for the cool-down.
  double lr_at(int64_t step, double spent = 0.0) const;

  // Plateau: called after each validation with its loss; lowers the rate
  // by plateau_factor after plateau_patience validations without improvement.
  void on_validation(double valid_loss);

  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  double schedule_lr(int64_t step) const;

  TrainConfig config_;
  int64_t d_model_;
  double plateau_scale_ = 1.0;
  double plateau_best_ = 0.0;
  bool plateau_has_best_ = false;
  int64_t plateau_bad_ = 0;
};

// The share of the run's budget used after `step` steps that took
// `target_tokens`: of train.max_target_tokens, or of train.max_steps, whichever
// is further along; 0 without either.
double budget_spent(const TrainConfig& config, int64_t step, int64_t target_tokens);

}  // namespace nmt::train
