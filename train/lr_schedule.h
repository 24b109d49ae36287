// Learning-rate schedules: the paper's warm-up (noam), inverse_sqrt (linear
// warm-up to train.lr, then lr * sqrt(warmup / step), as fairseq), the
// reference's reduce-on-plateau, and constant. Their state travels in checkpoints.
#pragma once

#include <nlohmann/json.hpp>

#include "util/config.h"

namespace nmt::train {

class LrSchedule {
 public:
  LrSchedule(const TrainConfig& config, int64_t d_model);

  // Learning rate for optimizer step `step` (1-based).
  double lr_at(int64_t step) const;

  // Plateau: called after each validation with its loss; lowers the rate
  // by plateau_factor after plateau_patience validations without improvement.
  void on_validation(double valid_loss);

  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  TrainConfig config_;
  int64_t d_model_;
  double plateau_scale_ = 1.0;
  double plateau_best_ = 0.0;
  bool plateau_has_best_ = false;
  int64_t plateau_bad_ = 0;
};

}  // namespace nmt::train
