// The large-block cache: size classes, reuse of freed blocks, the bound on
// what it holds whatever sizes come, one-off phases, small tensors left to
// the allocator before it, LibTorch's raw allocations and grown storages,
// and its counts under two threads. Each test installs the cache with the
// options it needs; run in one process with a cache of other options (as
// `nmt_tests` alone runs them), those tests skip.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

#include "tests/test_support.h"
#include "util/error.h"
#include "util/large_block_cache.h"
#include "util/proc_status.h"

namespace nmt {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

double held_mib() { return static_cast<double>(large_block_cache_stats().held) / kMiB; }

// A float tensor of `mib` MiB with every page written, as a layer's output is.
torch::Tensor touched_mib(double mib) {
  return torch::ones({static_cast<int64_t>(mib * kMiB / sizeof(float))}, torch::kFloat);
}

TEST(LargeBlockClass, RoundsUpToAnEighthOfThePowerOfTwoInWholePages) {
  const size_t page = 4096;
  size_t previous = 0;
  for (size_t n = kMiB; n < 300 * kMiB; n = n * 9 / 8 + 4099) {
    const size_t c = large_block_class(n);
    EXPECT_GE(c, n);
    EXPECT_LE(static_cast<double>(c), 1.125 * static_cast<double>(n) + page) << n;
    EXPECT_EQ(c % page, 0u) << n;
    EXPECT_GE(c, previous) << "classes grow with the request";
    EXPECT_EQ(large_block_class(c), c) << "a class is its own class";
    previous = c;
  }
  EXPECT_EQ(large_block_class(kMiB), kMiB);
  EXPECT_EQ(large_block_class(kMiB + 1), kMiB + kMiB / 8);
  EXPECT_EQ(large_block_class(3 * kMiB), 3 * kMiB);
  EXPECT_EQ(large_block_class(3 * kMiB + 5), 3 * kMiB + kMiB / 4);
}

// NMT_LARGE_BLOCKS: unset or empty, the defaults; "off", no cache; a number,
// the slack; anything else refused, naming the value.
TEST(LargeBlockCacheOptions, ComeFromTheEnvironment) {
  ::unsetenv("NMT_LARGE_BLOCKS");
  auto options = large_block_cache_options_from_env();
  ASSERT_TRUE(options.has_value());
  EXPECT_DOUBLE_EQ(options->slack, 0.10);
  EXPECT_EQ(options->min_bytes, size_t{256} << 10);
  ::setenv("NMT_LARGE_BLOCKS", "", 1);
  EXPECT_TRUE(large_block_cache_options_from_env().has_value());
  ::setenv("NMT_LARGE_BLOCKS", "off", 1);
  EXPECT_FALSE(large_block_cache_options_from_env().has_value());
  ::setenv("NMT_LARGE_BLOCKS", "0.25", 1);
  options = large_block_cache_options_from_env();
  ASSERT_TRUE(options.has_value());
  EXPECT_DOUBLE_EQ(options->slack, 0.25);
  for (const char* bad : {"no", "0.1x", "-1", "11", "nan"}) {
    ::setenv("NMT_LARGE_BLOCKS", bad, 1);
    EXPECT_TRUE(test::throws_with<UsageError>([] { large_block_cache_options_from_env(); },
                                              {"NMT_LARGE_BLOCKS", bad, "'off' or the cache's slack"}))
        << bad;
  }
  ::unsetenv("NMT_LARGE_BLOCKS");
}

// Installs the cache with `options` for this process; false (the test
// skips) where one with other options came first, as when the tests run in
// one process.
bool installed_as(const LargeBlockCacheOptions& options) {
  install_large_block_cache(options);
  const auto in_force = large_block_cache_options();
  return in_force && in_force->min_bytes == options.min_bytes && in_force->slack == options.slack;
}

class LargeBlockCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!installed_as({kMiB, 0.05})) GTEST_SKIP() << "a cache with other options is installed in this process";
    release_large_free_blocks();
  }
};

TEST_F(LargeBlockCacheTest, AFreedBlockServesTheNextRequestOfItsClass) {
  const LargeBlockCacheStats before = large_block_cache_stats();
  void* first = nullptr;
  {
    auto t = touched_mib(8);
    first = t.data_ptr();
    EXPECT_EQ(large_block_cache_stats().live, before.live + 8 * kMiB);
  }
  EXPECT_EQ(large_block_cache_stats().live, before.live);
  auto again = torch::empty({static_cast<int64_t>(8 * kMiB / sizeof(float)) - 100}, torch::kFloat);
  EXPECT_EQ(again.data_ptr(), first) << "a slightly smaller request of the same class takes the freed block";
  const LargeBlockCacheStats after = large_block_cache_stats();
  EXPECT_EQ(after.mapped, before.mapped + 1);
  EXPECT_EQ(after.reused, before.reused + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u) << "aligned as LibTorch's CPU allocator aligns";
}

TEST_F(LargeBlockCacheTest, SmallTensorsStayWithTheAllocatorBefore) {
  const LargeBlockCacheStats before = large_block_cache_stats();
  auto small = torch::ones({1000}, torch::kFloat);  // 4 KB
  auto just_below = torch::ones({static_cast<int64_t>(kMiB / sizeof(float)) - 1}, torch::kFloat);
  const LargeBlockCacheStats after = large_block_cache_stats();
  EXPECT_EQ(after.live, before.live);
  EXPECT_EQ(after.mapped, before.mapped);
  EXPECT_FLOAT_EQ(small.sum().item<float>(), 1000.0f);
}

// After a 256 MiB peak, requests of ever-changing sizes, up to four alive at
// once (at most 4 x 32 MiB, x 1.125 for their class and x 1.5 for a larger
// free block taken: 216 MiB, below the peak), never make the cache (or the
// process) hold more than the peak plus the 5% slack, however many of them
// the free blocks cannot serve.
TEST_F(LargeBlockCacheTest, HoldsNoMoreThanThePeakAndItsSlackWhateverTheSizes) {
  { auto peak = touched_mib(256); }
  const double high_water = static_cast<double>(large_block_cache_stats().high_water) / kMiB;
  ASSERT_GE(high_water, 256);
  const double rss_after_peak = proc_status_mib("VmRSS");
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> size(1.0, 32.0);
  double most_held = 0, most_rss = 0;
  const LargeBlockCacheStats before = large_block_cache_stats();
  for (int step = 0; step < 200; ++step) {
    std::vector<torch::Tensor> alive;
    for (int k = 0; k < 4; ++k) alive.push_back(touched_mib(size(rng)));
    most_held = std::max(most_held, held_mib());
    most_rss = std::max(most_rss, proc_status_mib("VmRSS"));
  }
  const LargeBlockCacheStats after = large_block_cache_stats();
  EXPECT_GT(after.mapped + after.resized - before.mapped - before.resized, 20)
      << "the sizes were meant to miss the free blocks often";
  EXPECT_LE(most_held, 1.05 * high_water + 0.01);
  EXPECT_LE(most_rss, rss_after_peak + 0.05 * high_water + 8) << "resident memory beyond the cache's bound";
  EXPECT_EQ(large_block_cache_stats().high_water, static_cast<uint64_t>(high_water * kMiB));
}

// Without the cache's bound the same sizes hold far more: the check above
// can fail. Here every freed block is kept (a bound of 10x the peak).
TEST(LargeBlockCacheBound, IsWhatKeepsTheSizesAbove) {
  if (!installed_as({kMiB, 9.0})) GTEST_SKIP() << "a cache with other options is installed in this process";
  { auto peak = touched_mib(100); }
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> size(1.0, 20.0);
  for (int step = 0; step < 200; ++step) {
    std::vector<torch::Tensor> alive;
    for (int k = 0; k < 4; ++k) alive.push_back(touched_mib(size(rng)));
  }
  const double high_water = static_cast<double>(large_block_cache_stats().high_water) / kMiB;
  EXPECT_GT(held_mib(), 1.5 * high_water) << "free blocks of many classes pile up when nothing bounds them";
}

TEST_F(LargeBlockCacheTest, ReleasingUnmapsEveryFreeBlock) {
  auto kept = touched_mib(16);
  { auto freed = touched_mib(64); }
  const double rss = proc_status_mib("VmRSS");
  EXPECT_GE(held_mib(), 80);
  release_large_free_blocks();
  EXPECT_EQ(large_block_cache_stats().held, large_block_cache_stats().live);
  EXPECT_LT(proc_status_mib("VmRSS"), rss - 60);
  EXPECT_FLOAT_EQ(kept[12345].item<float>(), 1.0f);
}

// LibTorch's raw_allocate (oneDNN's scratch buffers) keeps only the data
// pointer and frees it through raw_deleter: for blocks of both allocators.
TEST_F(LargeBlockCacheTest, RawAllocationsOfBothSizesGoBackWhereTheyCameFrom) {
  c10::Allocator* allocator = c10::GetCPUAllocator();
  const uint64_t live = large_block_cache_stats().live;
  void* large = allocator->raw_allocate(3 * kMiB);
  void* small = allocator->raw_allocate(4096);
  EXPECT_EQ(large_block_cache_stats().live, live + 3 * kMiB);
  std::memset(large, 1, 3 * kMiB);
  std::memset(small, 1, 4096);
  allocator->raw_deallocate(small);
  allocator->raw_deallocate(large);
  EXPECT_EQ(large_block_cache_stats().live, live);
}

// A storage grown in place (resize_) is copied into a new block of the
// cache and the old one is freed.
TEST_F(LargeBlockCacheTest, AStorageGrownInPlaceKeepsItsValues) {
  const uint64_t live = large_block_cache_stats().live;
  {
    auto t = torch::arange(static_cast<int64_t>(kMiB / sizeof(float)), torch::kFloat);  // 1 MiB
    t.resize_({static_cast<int64_t>(3 * kMiB / sizeof(float))});
    EXPECT_EQ(large_block_cache_stats().live, live + 3 * kMiB);
    EXPECT_FLOAT_EQ(t[12345].item<float>(), 12345.0f);
  }
  EXPECT_EQ(large_block_cache_stats().live, live);
}

// A one-off phase's peak (a validation decoding larger batches) raises the
// bound only while it lasts: afterwards the cache trims back to the bound of
// before, and holds no more than it did.
TEST_F(LargeBlockCacheTest, AOneOffPhaseDoesNotRaiseTheBoundForGood) {
  { auto step = touched_mib(40); }
  const uint64_t high_water = large_block_cache_stats().high_water;
  large_block_phase_begins();
  { auto one_off = touched_mib(200); }
  EXPECT_GE(large_block_cache_stats().held, 200 * kMiB);
  large_block_phase_ends();
  EXPECT_EQ(large_block_cache_stats().high_water, high_water);
  EXPECT_LE(large_block_cache_stats().held, high_water * 105 / 100);
  { auto step = touched_mib(40); }
  EXPECT_LE(large_block_cache_stats().held, high_water * 105 / 100);
}

TEST_F(LargeBlockCacheTest, TwoThreadsAllocatingAtOnceLeaveTheCountsRight) {
  const uint64_t live = large_block_cache_stats().live;
  auto work = [](int seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> floats(kMiB / 4, 4 * kMiB);
    for (int i = 0; i < 300; ++i) {
      auto a = torch::empty({floats(rng)}, torch::kFloat);
      auto b = torch::empty({floats(rng)}, torch::kFloat);
      a.fill_(1);
      b.fill_(2);
    }
  };
  std::thread other(work, 1);
  work(2);
  other.join();
  EXPECT_EQ(large_block_cache_stats().live, live);
  EXPECT_LE(large_block_cache_stats().held, large_block_cache_stats().high_water * 105 / 100 + kMiB);
}

}  // namespace
}  // namespace nmt
