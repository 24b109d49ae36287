#include "decode/parallel_batches.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <ATen/Parallel.h>

#include "kernels/onednn_cache.h"
#include "util/threads.h"

namespace nmt::decode {

std::vector<size_t> split_into_batches(size_t n, int64_t batch_size, int64_t parallel) {
  const auto size = static_cast<size_t>(std::max<int64_t>(1, batch_size));
  std::vector<size_t> starts{0};
  if (parallel <= 1) {
    while (starts.back() < n) starts.push_back(std::min(n, starts.back() + size));
    return starts;
  }
  const auto p = static_cast<size_t>(parallel);
  const size_t batches = std::min(n, ((n + size - 1) / size + p - 1) / p * p);
  for (size_t b = 0; b < batches; ++b) starts.push_back(starts.back() + n / batches + (b < n % batches ? 1 : 0));
  return starts;
}

std::vector<std::vector<size_t>> split_batch(size_t begin, size_t end, int64_t parts) {
  const size_t n = end > begin ? end - begin : 0;
  const auto count = std::min(n, static_cast<size_t>(std::max<int64_t>(1, parts)));
  std::vector<std::vector<size_t>> out(count);
  for (size_t k = 0; k < n; ++k) out[k % count].push_back(begin + k);
  return out;
}

void run_parallel_batches(size_t jobs, int64_t workers, const std::function<void(size_t)>& job) {
  run_parallel_rounds({0, jobs}, workers, job);
}

void run_parallel_rounds(const std::vector<size_t>& rounds, int64_t workers, const std::function<void(size_t)>& job) {
  const size_t jobs = rounds.empty() ? 0 : rounds.back();
  const auto threads = static_cast<size_t>(std::max<int64_t>(1, std::min<int64_t>(workers, jobs)));
  if (threads <= 1) {
    for (size_t i = 0; i < jobs; ++i) job(i);
    return;
  }
  // The first job of each job's round: it starts once every job before that has ended.
  std::vector<size_t> round_start(jobs);
  for (size_t r = 0; r + 1 < rounds.size(); ++r) {
    for (size_t i = rounds[r]; i < rounds[r + 1]; ++i) round_start[i] = rounds[r];
  }
  RestoreThreadSettings restore;
  // oneDNN 2.6 fails once it evicts what several threads used (kernels/onednn_cache.h).
  kernels::keep_onednn_primitives();
  set_blas_threads(1);  // OpenBLAS then computes on each caller's thread, without its shared pool
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::condition_variable changed;  // a thread settled, or a job ended
  size_t settled = 0, ended = 0;
  std::exception_ptr failure;
  auto work = [&] {
    // Each thread's OpenMP team becomes itself. at::set_num_threads also
    // empties oneDNN's computation cache, which another thread's product may
    // be using: every thread settles (ATen's lazy per-thread set-up included)
    // before any computes.
    at::set_num_threads(1);
    at::get_num_threads();
    {
      std::unique_lock<std::mutex> lock(mutex);
      if (++settled == threads) changed.notify_all();
      changed.wait(lock, [&] { return settled == threads; });
    }
    for (size_t i = next++; i < jobs; i = next++) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return ended >= round_start[i] || failure; });
        if (failure) return;
      }
      try {
        job(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        next = jobs;  // no further jobs start
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++ended;
      changed.notify_all();
    }
  };
  std::vector<std::thread> others;
  for (size_t t = 1; t < threads; ++t) others.emplace_back(work);
  work();
  for (auto& t : others) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace nmt::decode
