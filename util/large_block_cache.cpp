#include "util/large_block_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include <c10/core/CPUAllocator.h>

#include "util/error.h"

namespace nmt {
namespace {

size_t page_size() {
  static const auto size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// A mapping of one page more than its size class: the data starts a few
// cache lines into it, at one of 64 offsets in turn, so that tensors of equal
// sizes do not all start at the same place in a page and contend for the
// same cache sets (jemalloc offsets large blocks' starts for the same
// reason).
struct Block {
  char* base = nullptr;
  size_t bytes = 0;       // its size class
  size_t offset = 0;      // of the data from base: a multiple of 64 below a page
  uint64_t freed_at = 0;  // the cache's clock when it was last freed
  void* data() const { return base + offset; }
  size_t mapped_bytes() const { return bytes + page_size(); }
};

// Classes a request may take a free block from: its own and the next four
// (at most 1.5x its class).
constexpr int kClassesUp = 4;

constexpr size_t kHugePage = size_t{2} << 20;

class LargeBlockCache final : public c10::Allocator {
 public:
  LargeBlockCache(const LargeBlockCacheOptions& options, c10::Allocator* fallback)
      : options_(options), fallback_(fallback) {}

  c10::DataPtr allocate(size_t n) const override {
    if (n < options_.min_bytes) return fallback_->allocate(n);
    if (n > static_cast<size_t>(PTRDIFF_MAX)) throw std::bad_alloc();  // as LibTorch's own refuses it
    void* data = const_cast<LargeBlockCache*>(this)->take(n);
    return {data, data, &LargeBlockCache::free_block, c10::Device(c10::DeviceType::CPU)};
  }

  // Some of LibTorch (raw_allocate) keeps the data pointer alone: the
  // deleter takes that.
  c10::DeleterFnPtr raw_deleter() const override { return &LargeBlockCache::free_block; }

  LargeBlockCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  void release_free() {
    std::lock_guard<std::mutex> lock(mutex_);
    while (unmap_oldest_free()) {
    }
  }

  const LargeBlockCacheOptions& options() const { return options_; }

  // A one-off phase: its peak counts for the bound only while it lasts.
  void phase_begins() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (phase_depth_++ == 0) high_water_before_phase_ = stats_.high_water;
  }

  void phase_ends() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (phase_depth_ == 0 || --phase_depth_ > 0) return;
    stats_.high_water = std::max(high_water_before_phase_, stats_.live);
    while (stats_.held > bound_for(stats_.high_water) && unmap_oldest_free()) {
    }
  }

 private:
  static void free_block(void* data);

  void* take(size_t n) {
    const size_t size = large_block_class(n);
    std::lock_guard<std::mutex> lock(mutex_);
    Block* block = reuse(size);
    if (block == nullptr) {
      // Room for it within the bound, taking the new peak into account: the
      // free block unused the longest becomes this one (its pages stay
      // resident, no fault for them), and older ones go.
      const uint64_t bound = bound_for(std::max<uint64_t>(stats_.high_water, stats_.live + size));
      if (stats_.held + size > bound) block = resize_oldest_free(size);
      while (stats_.held + (block == nullptr ? size : 0) > bound && unmap_oldest_free()) {
      }
      if (block == nullptr) block = map(size);
    }
    stats_.live += block->bytes;
    stats_.high_water = std::max(stats_.high_water, stats_.live);
    live_blocks_.emplace(block->data(), block);
    // give_back runs in a deleter and must not allocate: its class's free
    // list always has room for every live block of the class.
    auto& freed = free_[block->bytes];
    const size_t live_of_class = ++live_per_class_[block->bytes];
    if (freed.capacity() < freed.size() + live_of_class) freed.reserve(freed.size() + live_of_class);
    return block->data();
  }

  uint64_t bound_for(uint64_t peak) const {
    return static_cast<uint64_t>((1.0 + options_.slack) * static_cast<double>(peak));
  }

  // The most recently freed block of the request's class or one of the next.
  Block* reuse(size_t size) {
    size_t largest = size;
    for (int k = 0; k < kClassesUp; ++k) largest = large_block_class(largest + 1);
    for (auto it = free_.lower_bound(size); it != free_.end() && it->first <= largest; ++it) {
      if (it->second.empty()) continue;
      Block* block = it->second.back();
      it->second.pop_back();
      ++stats_.reused;
      return block;
    }
    return nullptr;
  }

  Block* map(size_t size) {
    const auto map_once = [&] {
      return ::mmap(nullptr, size + page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    };
    void* base = map_once();
    if (base == MAP_FAILED) {  // the address space or the count of mappings: the free blocks go first
      while (unmap_oldest_free()) {
      }
      base = map_once();
      if (base == MAP_FAILED) throw std::bad_alloc();
    }
    advise_huge_pages(base, size);
    stats_.held += size;
    ++stats_.mapped;
    const size_t offset = (next_offset_++ % (page_size() / 64)) * 64;
    return new Block{static_cast<char*>(base), size, offset, 0};
  }

  // Transparent huge pages where the system gives them on request (its
  // "madvise" setting): fewer faults and TLB misses for the 2 MiB-aligned
  // parts of a block.
  static void advise_huge_pages(void* base, size_t size) {
    if (size >= kHugePage) ::madvise(base, size + page_size(), MADV_HUGEPAGE);
  }

  // The free list holding the block freed the longest ago; null when none is free.
  std::vector<Block*>* oldest_free() {
    std::vector<Block*>* oldest = nullptr;
    for (auto& [size, blocks] : free_) {
      if (!blocks.empty() && (oldest == nullptr || blocks.front()->freed_at < oldest->front()->freed_at)) {
        oldest = &blocks;
      }
    }
    return oldest;
  }

  // The free block freed the longest ago, out of its free list; null when none is free.
  Block* take_oldest_free() {
    std::vector<Block*>* oldest = oldest_free();
    if (oldest == nullptr) return nullptr;
    Block* block = oldest->front();
    oldest->erase(oldest->begin());
    return block;
  }

  // Unmaps the free block freed the longest ago; false when none is free.
  bool unmap_oldest_free() {
    Block* block = take_oldest_free();
    if (block == nullptr) return false;
    ::munmap(block->base, block->mapped_bytes());
    stats_.held -= block->bytes;
    ++stats_.unmapped;
    delete block;
    return true;
  }

  // The free block freed the longest ago, remapped to `size` bytes (its
  // pages moved, not copied); null when none is free or the kernel refuses.
  Block* resize_oldest_free(size_t size) {
    Block* block = take_oldest_free();
    if (block == nullptr) return nullptr;
    void* base = ::mremap(block->base, block->mapped_bytes(), size + page_size(), MREMAP_MAYMOVE);
    stats_.held -= block->bytes;
    if (base == MAP_FAILED) {
      ::munmap(block->base, block->mapped_bytes());
      ++stats_.unmapped;
      delete block;
      return nullptr;
    }
    block->base = static_cast<char*>(base);
    block->bytes = size;
    advise_huge_pages(base, size);
    stats_.held += size;
    ++stats_.resized;
    return block;
  }

  // False when the data is not one of the cache's blocks.
  bool give_back(void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = live_blocks_.find(data);
    if (it == live_blocks_.end()) return false;
    Block* block = it->second;
    live_blocks_.erase(it);
    stats_.live -= block->bytes;
    --live_per_class_.find(block->bytes)->second;
    block->freed_at = ++clock_;
    free_.find(block->bytes)->second.push_back(block);  // within its reserved room (take)
    return true;
  }

  const LargeBlockCacheOptions options_;
  c10::Allocator* const fallback_;
  std::mutex mutex_;
  std::unordered_map<void*, Block*> live_blocks_;  // by their data
  std::map<size_t, std::vector<Block*>> free_;  // by size class, the most recently freed last
  std::map<size_t, size_t> live_per_class_;     // live blocks of each size class
  uint64_t clock_ = 0;
  size_t next_offset_ = 0;  // in cache lines
  int phase_depth_ = 0;
  uint64_t high_water_before_phase_ = 0;
  LargeBlockCacheStats stats_;
};

// Never destroyed: tensors freed while the process exits still return here.
std::atomic<LargeBlockCache*> the_cache{nullptr};
std::mutex install_mutex;

// A small block reaches here only through raw_deallocate: it goes back to
// the allocator that made it.
void LargeBlockCache::free_block(void* data) {
  LargeBlockCache* cache = the_cache.load();
  if (!cache->give_back(data)) cache->fallback_->raw_deleter()(data);
}

}  // namespace

size_t large_block_class(size_t n) {
  size_t power = 1;
  while (power <= n / 2) power <<= 1;  // the largest power of two <= n
  const size_t step = std::max(power / 8, page_size());
  return (n + step - 1) / step * step;
}

std::optional<LargeBlockCacheOptions> large_block_cache_options_from_env() {
  const char* value = std::getenv("NMT_LARGE_BLOCKS");
  LargeBlockCacheOptions options;
  if (value == nullptr || *value == '\0') return options;
  const std::string text = value;
  if (text == "off") return std::nullopt;
  char* end = nullptr;
  const double slack = std::strtod(value, &end);
  if (end == value || *end != '\0' || !(slack >= 0.0 && slack <= 10.0)) {
    throw UsageError("NMT_LARGE_BLOCKS is '" + text + "'; it takes 'off' or the cache's slack, a number from 0 to 10.");
  }
  options.slack = slack;
  return options;
}

void install_large_block_cache(const LargeBlockCacheOptions& options) {
  std::lock_guard<std::mutex> lock(install_mutex);
  if (the_cache.load() != nullptr) return;
  c10::Allocator* before = c10::GetCPUAllocator();
  // Small blocks freed through raw_deallocate go back through the allocator
  // before's raw deleter: without one, no cache.
  if (before == nullptr || before->raw_deleter() == nullptr) return;
  auto* cache = new LargeBlockCache(options, before);
  the_cache.store(cache);  // before any block can be freed
  c10::SetCPUAllocator(cache, /*priority=*/1);
  if (c10::GetCPUAllocator() != cache) the_cache.store(nullptr);  // LibTorch kept one of a higher priority
}

bool large_block_cache_installed() { return the_cache.load() != nullptr; }

std::optional<LargeBlockCacheOptions> large_block_cache_options() {
  LargeBlockCache* cache = the_cache.load();
  return cache ? std::optional<LargeBlockCacheOptions>(cache->options()) : std::nullopt;
}

LargeBlockCacheStats large_block_cache_stats() {
  LargeBlockCache* cache = the_cache.load();
  return cache ? cache->stats() : LargeBlockCacheStats{};
}

void release_large_free_blocks() {
  if (LargeBlockCache* cache = the_cache.load()) cache->release_free();
}

void large_block_phase_begins() {
  if (LargeBlockCache* cache = the_cache.load()) cache->phase_begins();
}

void large_block_phase_ends() {
  if (LargeBlockCache* cache = the_cache.load()) cache->phase_ends();
}

}  // namespace nmt
