// Training figures between two log lines, averaged into one metrics.jsonl
// record (loss, throughput, step and allreduce times) and then reset.
#pragma once

#include <cstdint>

namespace nmt::train {

struct IntervalStats {
  int64_t steps = 0;
  double loss_sum = 0;        // label-smoothed, summed over target tokens
  int64_t tgt_tokens = 0;
  int64_t all_tokens = 0;     // source and target
  double seconds = 0;         // in train steps
  double allreduce_seconds = 0;  // of which summing gradients over the ranks

  void add_step(double step_loss_sum, int64_t step_tgt_tokens, int64_t step_src_tokens) {
    ++steps;
    loss_sum += step_loss_sum;
    tgt_tokens += step_tgt_tokens;
    all_tokens += step_tgt_tokens + step_src_tokens;
  }
  double loss() const { return loss_sum / static_cast<double>(tgt_tokens > 0 ? tgt_tokens : 1); }
  double tokens_per_s() const { return seconds > 0 ? tgt_tokens / seconds : 0; }
  double all_tokens_per_s() const { return all_tokens / (seconds > 1e-9 ? seconds : 1e-9); }
  double ms_per_step(double total_seconds) const { return 1000.0 * total_seconds / (steps > 0 ? steps : 1); }
};

}  // namespace nmt::train
