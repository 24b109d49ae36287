#include "train/run_state.h"

namespace nmt::train {

bool RunState::record_validation(double score, int64_t patience) {
  if (!has_best || score > best_score) {
    has_best = true;
    best_score = score;
    validations_without_improvement = 0;
    return true;
  }
  if (patience > 0 && ++validations_without_improvement >= patience) early_stopped = true;
  return false;
}

nlohmann::json RunState::to_json(double elapsed) const {
  return {{"step", step},
          {"target_tokens", target_tokens},
          {"has_best", has_best},
          {"best_score", best_score},
          {"validations_without_improvement", validations_without_improvement},
          {"elapsed_seconds", elapsed},
          {"valid_seconds", valid_seconds}};
}

void RunState::restore(const nlohmann::json& saved) {
  step = saved.at("step");
  target_tokens = saved.value("target_tokens", int64_t{0});
  has_best = saved.at("has_best");
  best_score = saved.at("best_score");
  validations_without_improvement = saved.at("validations_without_improvement");
  elapsed_before = saved.value("elapsed_seconds", 0.0);
  valid_seconds = saved.value("valid_seconds", 0.0);
}

}  // namespace nmt::train
