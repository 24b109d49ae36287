// kernels::with_step_team and parallel_range: inside a step team every part
// of every range runs exactly once, in at::parallel_for's chunks, over
// thousands of calls of varying sizes (the calls a decoding step makes);
// the helpers take part; a throwing body is rethrown and the team closed;
// a nested body and a range outside any team still cover every index.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/step_team.h"
#include "tests/test_support.h"
#include "util/threads.h"

namespace nmt::kernels {
namespace {

// parallel_range(0, n, grain) on this thread: every index once, in chunks
// of at::parallel_for's split for `threads` threads. Records the threads
// that ran chunks in `seen`.
void expect_covered_once(int64_t n, int64_t grain, int64_t threads, std::set<std::thread::id>& seen,
                         std::mutex& seen_mutex) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  for (auto& h : hits) h.store(0);
  const int64_t parts = std::max<int64_t>(1, std::min(threads, (n + grain - 1) / grain));
  const int64_t chunk = (n + parts - 1) / parts;
  std::atomic<bool> aligned{true};
  parallel_range(0, n, grain, [&](int64_t first, int64_t last) {
    // Work of a step's product or more, so that a helper has time to take
    // its part before the caller, done with its own, takes it too.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
    while (std::chrono::steady_clock::now() < until) {
    }
    if (first % chunk != 0 || (last != n && last - first != chunk)) aligned = false;
    for (int64_t i = first; i < last; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.insert(std::this_thread::get_id());
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n;
  EXPECT_TRUE(aligned.load()) << n << " indices, grain " << grain;
}

TEST(StepTeam, RunsEveryPartOnceAcrossManyCalls) {
  const RestoreThreadSettings restore;
  for (int threads : {2, 3, 4}) {
    at::set_num_threads(threads);
    std::set<std::thread::id> seen;
    std::mutex seen_mutex;
    with_step_team([&] {
      for (int call = 0; call < 2000; ++call) {
        expect_covered_once(1 + call % 37, 1 + call % 5, threads, seen, seen_mutex);
        if (::testing::Test::HasFatalFailure()) return;
      }
    });
    // Over thousands of calls the helpers take parts, not the caller alone.
    EXPECT_GE(seen.size(), 2u) << threads << " threads";
  }
}

TEST(StepTeam, RethrowsTheBodysErrorAndClosesTheTeam) {
  const RestoreThreadSettings restore;
  at::set_num_threads(2);
  EXPECT_TRUE(test::throws_with<std::runtime_error>(
      [] {
        with_step_team([] {
          parallel_range(0, 8, 1, [](int64_t, int64_t) {});
          throw std::runtime_error("the body failed");
        });
      },
      {"the body failed"}));
  std::set<std::thread::id> seen;
  std::mutex seen_mutex;
  with_step_team([&] { expect_covered_once(16, 1, 2, seen, seen_mutex); });
}

TEST(StepTeam, CoversTheRangeNestedAndOutsideATeam) {
  const RestoreThreadSettings restore;
  at::set_num_threads(2);
  std::set<std::thread::id> seen;
  std::mutex seen_mutex;
  expect_covered_once(100, 3, 2, seen, seen_mutex);  // at::parallel_for
  with_step_team([&] {
    with_step_team([&] { expect_covered_once(100, 3, 2, seen, seen_mutex); });  // the outer team
  });
  at::set_num_threads(1);
  with_step_team([&] { expect_covered_once(100, 3, 1, seen, seen_mutex); });  // one thread: no team
}

}  // namespace
}  // namespace nmt::kernels
