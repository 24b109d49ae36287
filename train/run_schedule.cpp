#include "train/run_schedule.h"

#include <algorithm>

namespace nmt::train {

int64_t RunSchedule::total_steps(int64_t batches_in_epoch, int64_t ranks) const {
  if (train_.epochs == 0) return train_.max_steps;
  const int64_t batches = batches_in_epoch * train_.epochs;
  const int64_t per_step = train_.accum_steps * ranks;
  const int64_t by_epochs = (batches + per_step - 1) / per_step;
  return train_.max_steps > 0 ? std::min(by_epochs, train_.max_steps) : by_epochs;
}

bool RunSchedule::out_of_time(const RunState& state) const {
  return train_.max_minutes > 0 && state.elapsed_seconds() >= train_.max_minutes * 60.0;
}

void RunSchedule::check_time_budget(RunState& state) const {
  if (!state.budget_spent && out_of_time(state)) state.budget_spent = true;
}

double RunSchedule::seconds_left(const RunState& state) const {
  if (train_.max_minutes <= 0) return -1;
  return std::max(0.0, train_.max_minutes * 60.0 - state.elapsed_seconds());
}

bool RunSchedule::finished(const RunState& state, bool stop_requested) const {
  if (stop_requested || state.early_stopped || state.budget_spent || tokens_spent(state)) return true;
  return train_.max_steps > 0 && state.step >= train_.max_steps;
}

}  // namespace nmt::train
