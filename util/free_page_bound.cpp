#include "util/free_page_bound.h"

#include <algorithm>

#include "util/allocator.h"

namespace nmt {

FreePageBound::FreePageBound(double slack, int64_t min_steps_between)
    : slack_(slack), min_steps_between_(min_steps_between), steps_since_purge_(min_steps_between) {}

void FreePageBound::step_begins() {
  const AllocatorStats stats = allocator_stats();
  live_at_start_ = stats.allocated;
  reset_thread_peak();
}

bool FreePageBound::step_ended() {
  const uint64_t grown = thread_peak_bytes();
  const AllocatorStats stats = allocator_stats();
  if (stats.resident == 0) return false;  // the allocator does not say (glibc)
  highest_peak_ = std::max(highest_peak_, live_at_start_ + grown);
  ++steps_since_purge_;
  if (static_cast<double>(stats.resident) <= (1.0 + slack_) * static_cast<double>(highest_peak_)) return false;
  if (steps_since_purge_ < min_steps_between_) return false;
  release_free_memory();
  ++purges_;
  steps_since_purge_ = 0;
  return true;
}

}  // namespace nmt
