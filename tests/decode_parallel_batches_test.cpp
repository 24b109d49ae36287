// Batches decoded at once: how sentences are split into batches, every job
// run exactly once, errors carried back to the caller, thread settings
// restored, and translations identical to decoding one batch at a time.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "decode/parallel_batches.h"
#include "decode/translation.h"
#include "kernels/onednn_cache.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/threads.h"

namespace nmt::decode {
namespace {

std::vector<size_t> sizes_of(const std::vector<size_t>& starts) {
  std::vector<size_t> sizes;
  for (size_t i = 1; i < starts.size(); ++i) sizes.push_back(starts[i] - starts[i - 1]);
  return sizes;
}

TEST(SplitIntoBatches, OneAtATimeFillsEveryBatchButTheLast) {
  EXPECT_EQ(sizes_of(split_into_batches(100, 32, 1)), (std::vector<size_t>{32, 32, 32, 4}));
  EXPECT_EQ(sizes_of(split_into_batches(64, 32, 1)), (std::vector<size_t>{32, 32}));
  EXPECT_EQ(sizes_of(split_into_batches(5, 32, 1)), (std::vector<size_t>{5}));
  EXPECT_EQ(split_into_batches(0, 32, 1), (std::vector<size_t>{0}));
}

TEST(SplitIntoBatches, InParallelBatchesAreEvenAndAMultipleOfTheWorkers) {
  // 100 sentences would take 4 batches of at most 32: 4 of 25 for 2 workers.
  EXPECT_EQ(sizes_of(split_into_batches(100, 32, 2)), (std::vector<size_t>{25, 25, 25, 25}));
  // 3 full batches' worth, 2 workers: 4 batches, none over 32.
  EXPECT_EQ(sizes_of(split_into_batches(70, 32, 2)), (std::vector<size_t>{18, 18, 17, 17}));
  EXPECT_EQ(sizes_of(split_into_batches(3, 32, 2)), (std::vector<size_t>{2, 1}));
  EXPECT_EQ(sizes_of(split_into_batches(1, 32, 4)), (std::vector<size_t>{1}));  // never an empty batch
  EXPECT_EQ(split_into_batches(0, 32, 2), (std::vector<size_t>{0}));
  for (size_t n : {1u, 7u, 33u, 129u, 1000u}) {
    for (int64_t parallel : {2, 3, 8}) {
      const auto starts = split_into_batches(n, 32, parallel);
      EXPECT_EQ(starts.back(), n);
      for (size_t s : sizes_of(starts)) {
        EXPECT_GE(s, 1u);
        EXPECT_LE(s, 32u);
      }
    }
  }
}

std::vector<size_t> range(size_t begin, size_t end) {
  std::vector<size_t> r;
  for (size_t k = begin; k < end; ++k) r.push_back(k);
  return r;
}

TEST(SplitBatch, DealsTheSentencesInTurnNeverAnEmptyPart) {
  using Parts = std::vector<std::vector<size_t>>;
  EXPECT_EQ(split_batch(0, 6, 2), (Parts{{0, 2, 4}, {1, 3, 5}}));
  EXPECT_EQ(split_batch(64, 71, 3), (Parts{{64, 67, 70}, {65, 68}, {66, 69}}));
  EXPECT_EQ(split_batch(5, 7, 4), (Parts{{5}, {6}}));  // never more parts than sentences
  EXPECT_EQ(split_batch(5, 8, 1), (Parts{range(5, 8)}));
  EXPECT_TRUE(split_batch(3, 3, 2).empty());
}

TEST(RunParallelRounds, ARoundStartsOnlyOnceTheRoundsBeforeHaveEnded) {
  const std::vector<size_t> rounds{0, 2, 5, 6, 9};
  std::atomic<size_t> ended{0};
  std::vector<std::atomic<int>> runs(9);
  std::atomic<int> early{0};
  run_parallel_rounds(rounds, 3, [&](size_t i) {
    size_t first = 0;  // the first job of i's round
    for (size_t r = 0; r + 1 < rounds.size(); ++r) first = i >= rounds[r] ? rounds[r] : first;
    if (ended.load() < first) early++;
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 3 == 0 ? 3 : 1));  // rounds' jobs end unevenly
    runs[i]++;
    ended++;
  });
  EXPECT_EQ(early.load(), 0);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "job " << i;
  EXPECT_THROW(run_parallel_rounds({0, 2, 4}, 2, [](size_t i) { if (i == 1) throw std::runtime_error("failed"); }),
               std::runtime_error);
}

TEST(RunParallelBatches, RunsEveryJobOnceAndRestoresThreadSettings) {
  const int aten_before = at::get_num_threads(), blas_before = blas_threads();
  for (int64_t workers : {1, 2, 5}) {
    std::vector<std::atomic<int>> runs(23);
    run_parallel_batches(runs.size(), workers, [&](size_t i) { runs[i]++; });
    for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "job " << i << ", workers " << workers;
    EXPECT_EQ(at::get_num_threads(), aten_before);
    EXPECT_EQ(blas_threads(), blas_before);
  }
}

// What OneDnnsCacheNeverEvictsOnceBatchesRanAtOnce checks, in a process
// where no batches ran at once yet: "" when it holds, else what failed.
std::string cache_kept_once_batches_ran_at_once() {
  const int before = kernels::onednn_primitive_cache_capacity();
  if (before >= 1 << 30) return "the cache never evicted from the start (" + std::to_string(before) + ")";
  std::vector<int> seen(4, -1);
  run_parallel_batches(seen.size(), 1, [&](size_t i) { seen[i] = kernels::onednn_primitive_cache_capacity(); });
  for (int capacity : seen) {  // one thread: nothing to guard against
    if (capacity != before) return "one batch at a time changed the capacity to " + std::to_string(capacity);
  }
  run_parallel_batches(seen.size(), 2, [&](size_t i) { seen[i] = kernels::onednn_primitive_cache_capacity(); });
  for (int capacity : seen) {
    if (capacity < 1 << 30) return "a batch ran at once with a capacity of " + std::to_string(capacity);
  }
  if (kernels::onednn_primitive_cache_capacity() < 1 << 30) return "the capacity went back after the call";
  try {
    run_parallel_batches(3, 2, [](size_t) { throw std::runtime_error("failed"); });
    return "a job's error did not reach the caller";
  } catch (const std::runtime_error&) {
  }
  if (kernels::onednn_primitive_cache_capacity() < 1 << 30) return "the capacity went back after a failed call";
  return "";
}

// Debian's oneDNN 2.6 fails once its primitive cache evicts what several
// threads created (kernels/onednn_cache.h): from the first time batches run at
// once, the cache never evicts again in that process. One batch at a time
// leaves it alone. The setting lasts for the process, so the check runs in a
// fresh one (gtest's threadsafe death-test style runs this test again alone).
TEST(RunParallelBatches, OneDnnsCacheNeverEvictsOnceBatchesRanAtOnce) {
  if (kernels::onednn_primitive_cache_capacity() < 0) GTEST_SKIP() << "oneDNN's C API is not visible in this LibTorch";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::string failed = cache_kept_once_batches_ran_at_once();
        std::fprintf(stderr, "%s\n", failed.empty() ? "held" : failed.c_str());
        std::exit(failed.empty() ? 0 : 1);
      },
      testing::ExitedWithCode(0), "held");
}

TEST(RunParallelBatches, AJobsErrorReachesTheCallerAndStopsTheRest) {
  std::atomic<int> started{0};
  EXPECT_THROW(run_parallel_batches(200, 2,
                                    [&](size_t i) {
                                      started++;
                                      if (i == 3) throw std::runtime_error("batch 3 failed");
                                      std::this_thread::sleep_for(std::chrono::milliseconds(2));
                                    }),
               std::runtime_error);
  EXPECT_LT(started.load(), 200);
}

TranslatorOptions options(int64_t parallel, bool split) {
  TranslatorOptions o;
  o.search.beam = 3;
  o.search.nbest = 2;
  o.batch_size = 4;
  o.parallel_batches = parallel;
  o.split_batches = split;
  return o;
}

std::vector<std::vector<Hypothesis>> translate(model::Transformer model, int64_t parallel,
                                               const std::vector<std::vector<int64_t>>& sources, bool split = false) {
  Translator t(model, SearchIds{2, 3, 1}, 2, 3, options(parallel, split));
  return t.translate_ids(sources);
}

std::vector<std::vector<int64_t>> test_sources() {
  std::vector<std::vector<int64_t>> sources;
  for (int64_t s = 0; s < 19; ++s) {
    std::vector<int64_t> ids;
    for (int64_t j = 0; j < 2 + (s * 7) % 13; ++j) ids.push_back(4 + (s * 5 + j * 3) % 46);
    sources.push_back(ids);
  }
  return sources;
}

// The same hypotheses for every sentence; `what` names the way b decoded.
void expect_same_translations(const std::vector<std::vector<Hypothesis>>& a,
                              const std::vector<std::vector<Hypothesis>>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  std::set<std::vector<int64_t>> distinct;
  for (size_t s = 0; s < a.size(); ++s) {
    ASSERT_EQ(a[s].size(), b[s].size()) << what << ", sentence " << s;
    distinct.insert(a[s][0].tokens);
    for (size_t k = 0; k < a[s].size(); ++k) {
      EXPECT_EQ(a[s][k].tokens, b[s][k].tokens) << what << ", sentence " << s << ", hypothesis " << k;
      // The batches differ (sizes 4,4,4,4,3 vs 4,3,3,3,3,3, or halves of 4),
      // so padding differs; the scores may differ in float rounding only.
      EXPECT_NEAR(a[s][k].score, b[s][k].score, 1e-4) << what << ", sentence " << s << ", hypothesis " << k;
    }
  }
  EXPECT_GE(distinct.size(), 5u) << "outputs must differ for the test to see misplaced results";
}

TEST(ParallelTranslation, EqualsOneBatchAtATimeInEveryLineAndScore) {
  auto model = test::tiny_model(21, /*max_len=*/40, /*vocab_size=*/50);
  model->train();  // a model borrowed from training: decoded in eval mode, given back in training mode
  const auto sources = test_sources();
  const auto one = translate(model, 1, sources);
  const auto three = translate(model, 3, sources);
  EXPECT_TRUE(model->is_training());
  expect_same_translations(one, three, "3 parallel batches");
}

TEST(SplitBatches, OnePartPerThreadOnlyForOneBatchAtATimeOnTheCpu) {
  auto model = test::tiny_model(21, /*max_len=*/40, /*vocab_size=*/50);
  RestoreThreadSettings restore;
  at::set_num_threads(2);
  const SearchIds ids{2, 3, 1};
  EXPECT_EQ(Translator(model, ids, 2, 3, options(1, true)).parts_per_batch(4), 2);
  EXPECT_EQ(Translator(model, ids, 2, 3, options(1, true)).parts_per_batch(1), 1);  // one sentence: products split
  EXPECT_EQ(Translator(model, ids, 2, 3, options(1, false)).parts_per_batch(4), 1);
  EXPECT_EQ(Translator(model, ids, 2, 3, options(2, true)).parts_per_batch(4), 1);  // each batch has its core
  at::set_num_threads(1);
  EXPECT_EQ(Translator(model, ids, 2, 3, options(1, true)).parts_per_batch(4), 1);
}

TEST(SplitBatches, EqualWholeBatchesInEveryLineAndScore) {
  auto model = test::tiny_model(21, /*max_len=*/40, /*vocab_size=*/50);
  RestoreThreadSettings restore;
  at::set_num_threads(2);
  const auto sources = test_sources();
  const auto whole = translate(model, 1, sources, /*split=*/false);
  const auto halves = translate(model, 1, sources, /*split=*/true);
  EXPECT_EQ(at::get_num_threads(), 2);  // the workers' one-thread settings do not leak
  expect_same_translations(whole, halves, "batches split over 2 threads");
}

}  // namespace
}  // namespace nmt::decode
