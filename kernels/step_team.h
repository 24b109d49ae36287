// A decoding step's work split over the intra-op threads with one OpenMP
// fork and join a step instead of one a product.
//
// A greedy batch-1 step of a small model is ~20 products of a few
// microseconds each. Run through at::parallel_for, each product was an
// OpenMP parallel region: the caller woke the team, and both threads met at
// the region's end. With the sample model in fp32 on two threads (perf, the
// 2-core Intel Xeon with AMX) the calling thread spent about a sixth of its
// time in that fork and join, the other thread more than half of its own
// waiting in it (docs/performance.md, "One parallel region a step").
//
// with_step_team(body) opens one parallel region around body: the calling
// thread runs body while the region's other threads wait, spinning (and
// giving their core to any other thread that wants it every ~10 us), for
// the parts of the work body splits (parallel_range), which each takes
// through one compare-and-swap. The caller takes parts from the first, the
// helpers from the last, so that at every call the same thread mostly
// computes the same part (the same weights, which stay in its cache) and a
// helper that arrives late leaves its part to the caller instead of making
// it wait. Outside such a body parallel_range is at::parallel_for. Parts
// must not throw; body may (rethrown once the region has closed).
//
// Inside body the caller is in a parallel region: ATen's own operators and
// oneDNN run on one thread there. Bodies are the fused decoding step, whose
// work is this library's kernels, at row counts those kernels take.
#pragma once

#include <algorithm>
#include <cstdint>

#include <ATen/Parallel.h>

namespace nmt::kernels {

namespace detail {
using Call = void (*)(const void* context, int64_t part);
using Body = void (*)(const void* context);
// The threads of the team running on this thread (0: none runs).
int64_t team_threads();
// Runs call(context, p) for every p in [0, parts) on that team.
void run_on_team(int64_t parts, Call call, const void* context);
void with_team(Body body, const void* context);
}  // namespace detail

template <typename Body>
void with_step_team(const Body& body) {
  detail::with_team([](const void* context) { (*static_cast<const Body*>(context))(); }, &body);
}

// f(first, last) over [begin, end) in at::parallel_for's chunks (at least
// grain long, at most one a thread), on the step team where one runs here.
template <typename F>
void parallel_range(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int64_t team = detail::team_threads();
  if (team == 0) {
    at::parallel_for(begin, end, grain, f);
    return;
  }
  const int64_t parts = std::min(team, (n + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1));
  if (parts <= 1) {
    f(begin, end);
    return;
  }
  const int64_t chunk = (n + parts - 1) / parts;
  const auto part = [&](int64_t p) {
    const int64_t first = begin + p * chunk;
    if (first < end) f(first, std::min(end, first + chunk));
  };
  detail::run_on_team(parts, [](const void* context, int64_t p) { (*static_cast<decltype(part)*>(context))(p); },
                      &part);
}

}  // namespace nmt::kernels
