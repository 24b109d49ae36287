#include "util/free_page_bound.h"

#include <algorithm>

#include "util/allocator.h"

namespace nmt {

FreePageBound::FreePageBound(double slack) : slack_(slack) {}

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
  if (static_cast<double>(stats.resident) <= (1.0 + slack_) * static_cast<double>(highest_peak_)) return false;
  release_free_memory();
  ++purges_;
  return true;
}

}  // namespace nmt
