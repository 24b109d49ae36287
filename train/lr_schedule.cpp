#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace nmt::train {

LrSchedule::LrSchedule(const TrainConfig& config, int64_t d_model) : config_(config), d_model_(d_model) {}

double LrSchedule::lr_at(int64_t step, double spent) const {
  const double lr = schedule_lr(step);
  const double cooldown = config_.cooldown;
  if (cooldown <= 0 || spent <= 1.0 - cooldown) return lr;
  return lr * std::max(0.0, (1.0 - spent) / cooldown);
}

double LrSchedule::schedule_lr(int64_t step) const {
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  const double warmup = static_cast<double>(config_.warmup_steps);
  if (config_.schedule == "noam") {
    // lr * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
    const double ramp = warmup > 0 ? s * std::pow(warmup, -1.5) : std::pow(s, -0.5);
    return config_.lr * std::pow(static_cast<double>(d_model_), -0.5) * std::min(std::pow(s, -0.5), ramp);
  }
  if (config_.schedule == "inverse_sqrt") {
    // fairseq's inverse_sqrt: linear warm-up to lr, then lr * sqrt(warmup / step).
    return s <= warmup ? config_.lr * s / warmup : config_.lr * std::sqrt(warmup / s);
  }
  // constant and plateau: linear warm-up, then the configured rate.
  const double ramp = warmup > 0 ? std::min(1.0, s / warmup) : 1.0;
  const double scale = config_.schedule == "plateau" ? plateau_scale_ : 1.0;
  return config_.lr * ramp * scale;
}

void LrSchedule::on_validation(double valid_loss) {
  if (config_.schedule != "plateau") return;
  if (!plateau_has_best_ || valid_loss < plateau_best_) {
    plateau_best_ = valid_loss;
    plateau_has_best_ = true;
    plateau_bad_ = 0;
    return;
  }
  if (++plateau_bad_ > config_.plateau_patience) {
    plateau_scale_ *= config_.plateau_factor;
    plateau_bad_ = 0;
  }
}

double budget_spent(const TrainConfig& config, int64_t step, int64_t target_tokens) {
  double spent = 0.0;
  if (config.max_target_tokens > 0)
    spent = static_cast<double>(target_tokens) / static_cast<double>(config.max_target_tokens);
  if (config.max_steps > 0) spent = std::max(spent, static_cast<double>(step) / static_cast<double>(config.max_steps));
  return spent;
}

nlohmann::json LrSchedule::state() const {
  return {{"plateau_scale", plateau_scale_},
          {"plateau_best", plateau_best_},
          {"plateau_has_best", plateau_has_best_},
          {"plateau_bad", plateau_bad_}};
}

void LrSchedule::restore(const nlohmann::json& s) {
  plateau_scale_ = s.at("plateau_scale");
  plateau_best_ = s.at("plateau_best");
  plateau_has_best_ = s.at("plateau_has_best");
  plateau_bad_ = s.at("plateau_bad");
}

}  // namespace nmt::train
