#include "kernels/step_team.h"

#include <sched.h>

#include <atomic>
#include <exception>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace nmt::kernels::detail {
namespace {

// One turn of a wait loop: a pause, and every 256th time (~10 us here)
// the core handed to any other thread that wants it: where more threads run
// than there are cores (two models' steps at once in a server), a helper
// spinning must not keep a preempted caller, or helper, off its core.
inline void relax(int& turns) {
#if defined(__x86_64__)
  _mm_pause();
#endif
  if (++turns % 256 == 0) sched_yield();
}

// One call's parts, handed out from both ends. The state word holds the
// call's number (upper 32 bits), its number of parts (10 bits) and the parts
// taken from the front and from the back (11 bits each): a compare-and-swap
// on it takes a part of this call only, counted against this call's parts,
// so a helper still leaving the last call cannot take one of the next (with
// the count in a word of its own, such a helper could read the next call's
// count against the last call's word and take a part of the next twice).
constexpr int kCountBits = 11;
constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;
constexpr int kPartsShift = 2 * kCountBits;
constexpr uint64_t kPartsMask = (uint64_t{1} << 10) - 1;

class Team {
 public:
  explicit Team(int64_t threads) : threads_(threads) {}

  int64_t threads() const { return threads_; }

  // On the caller's thread.
  void run(int64_t parts, Call call, const void* context) {
    call_ = call;
    context_ = context;
    done_.store(0, std::memory_order_relaxed);
    call_number_ = (call_number_ + 1) & 0xffffffffu;
    // Publishes the call.
    state_.store(call_number_ << 32 | static_cast<uint64_t>(parts) << kPartsShift, std::memory_order_release);
    work(call_number_, false);
    int turns = 0;
    while (done_.load(std::memory_order_acquire) < parts) relax(turns);
  }

  // On each helper's thread, until stop().
  void serve() {
    uint64_t seen = 0;
    for (;;) {
      uint64_t number;
      int turns = 0;
      while ((number = state_.load(std::memory_order_acquire) >> 32) == seen) {
        if (stopped_.load(std::memory_order_relaxed)) return;
        relax(turns);
      }
      seen = number;
      work(number, true);
    }
  }

  void stop() { stopped_.store(true, std::memory_order_relaxed); }

 private:
  // Takes and runs parts of call `number` from the front (or back) until
  // none is left.
  void work(uint64_t number, bool from_back) {
    int64_t part;
    while ((part = take(number, from_back)) >= 0) {
      call_(context_, part);
      done_.fetch_add(1, std::memory_order_release);
    }
  }

  int64_t take(uint64_t number, bool from_back) {
    uint64_t state = state_.load(std::memory_order_acquire);
    for (;;) {
      if (state >> 32 != number) return -1;  // a later call: this one is over
      const int64_t parts = static_cast<int64_t>(state >> kPartsShift & kPartsMask);
      const int64_t front = static_cast<int64_t>(state >> kCountBits & kCountMask);
      const int64_t back = static_cast<int64_t>(state & kCountMask);
      if (front + back >= parts) return -1;
      const uint64_t taken = state + (from_back ? 1 : uint64_t{1} << kCountBits);
      if (state_.compare_exchange_weak(state, taken, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return from_back ? parts - 1 - back : front;
      }
    }
  }

  const int64_t threads_;
  Call call_ = nullptr;
  const void* context_ = nullptr;
  uint64_t call_number_ = 0;  // the caller's alone
  std::atomic<bool> stopped_{false};
  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<int64_t> done_{0};
};

thread_local Team* current = nullptr;  // the team whose body this thread runs

}  // namespace

int64_t team_threads() { return current ? current->threads() : 0; }

void run_on_team(int64_t parts, Call call, const void* context) {
  if (parts > static_cast<int64_t>(kPartsMask)) {  // more than the state word counts: on this thread
    for (int64_t p = 0; p < parts; ++p) call(context, p);
    return;
  }
  current->run(parts, call, context);
}

void with_team(Body body, const void* context) {
  const int64_t threads = at::get_num_threads();
  if (threads <= 1 || current || at::in_parallel_region()) {
    body(context);
    return;
  }
  Team team(threads);
  std::exception_ptr error;
  at::parallel_for(0, threads, 1, [&](int64_t first, int64_t) {
    if (first != 0) {
      team.serve();
      return;
    }
    current = &team;
    try {
      body(context);
    } catch (...) {
      error = std::current_exception();
    }
    current = nullptr;
    team.stop();
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace nmt::kernels::detail
