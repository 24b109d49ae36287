// Bounds the free pages the allocator keeps between training steps.
//
// jemalloc runs without decay (util/allocator.h): a step's large tensors are
// freed and allocated again every step in pages that stay mapped, so no step
// faults its memory in afresh. What it keeps is therefore the most the step's
// blocks ever spanned in the arena, and that grows when batches of new shapes
// lay their blocks out differently: measured on the Multi30k recipe, the
// allocator's resident bytes rose from 1.0x to 1.23x the step's peak in the
// first 200 steps, and by +340 MiB after the first checkpoint on another
// machine of this kind.
//
// This object watches each step: its peak (the live bytes at its start plus
// the most this thread allocated on top during it, by jemalloc's
// thread.peak counter) and, after it, the allocator's resident bytes. When
// they pass the highest step peak seen times (1 + slack), every free page goes
// back to the system; the next step faults in what it uses, once. At most
// one purge every min_steps_between steps keeps that cost small when the
// pages pile up again quickly, as they do: in the recipe's 60-minute run the
// bound acted 158 times in 3,970 steps and the resident set still swung by up
// to 30% between purges (README, Memory). It bounds the memory; it does not
// make it flat.
//
// Without jemalloc (glibc builds) it does nothing.
#pragma once

#include <cstdint>

namespace nmt {

class FreePageBound {
 public:
  explicit FreePageBound(double slack = 0.05, int64_t min_steps_between = 25);

  // Before a step: the live bytes now, and this thread's peak counter reset.
  void step_begins();
  // After it: raises the bound to this step's peak when that is the highest
  // yet, and gives the free pages back when the allocator holds more than the
  // bound (and min_steps_between steps have passed since it last did). True
  // when it did.
  bool step_ended();

  double highest_peak_mib() const { return static_cast<double>(highest_peak_) / (1 << 20); }
  int64_t purges() const { return purges_; }

 private:
  double slack_;
  int64_t min_steps_between_;
  uint64_t live_at_start_ = 0, highest_peak_ = 0;
  int64_t purges_ = 0, steps_since_purge_ = 0;
};

}  // namespace nmt
