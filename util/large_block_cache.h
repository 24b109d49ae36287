// A cache of large tensor blocks for training, so that its memory stays flat.
//
// Every training step allocates and frees the same large tensors (each
// layer's activations, the logits and their gradients) in sizes that change
// with the batch's shape. A general allocator keeps the pages of freed blocks
// (jemalloc without decay, util/allocator.h) and lays each step's blocks out
// anew among them: its resident set drifts up to the widest layout it has
// ever made, not to what the step needs, and giving free pages back only
// makes the next steps fault them in and spread again (a 30% swing in the
// 60-minute recipe run, docs/memory.md).
//
// This cache takes the CPU tensors of at least `min_bytes` instead. Each is a
// mapping of its own, rounded up to a size class (eighths of a power of two,
// at most 12.5% above the request). A freed block waits in its class for the
// next request of that class (or of one of the next four classes). A request
// that finds none, when a new block would take the cache past its bound,
// `(1 + slack)` times the most that was ever live at once, takes the free
// block unused the longest and remaps it to its size (mremap moves its pages
// without copying: only a larger block's new pages are faulted in), unmapping
// older free blocks as far as needed; below the bound it maps a new block.
// So once the largest step has run, the cache holds between that peak and
// the bound, whatever the batch shapes do.
//
// Tensors below min_bytes (and everything else the process allocates) stay
// with the allocator that was there before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace nmt {

struct LargeBlockCacheStats {
  uint64_t live = 0;        // bytes of blocks in use
  uint64_t held = 0;        // bytes of blocks mapped: in use and free
  uint64_t high_water = 0;  // the most `live` has been
  int64_t reused = 0;       // requests served by a free block
  int64_t mapped = 0;       // blocks mapped
  int64_t resized = 0;      // free blocks remapped to another size
  int64_t unmapped = 0;     // blocks given back
};

struct LargeBlockCacheOptions {
  size_t min_bytes = size_t{256} << 10;
  double slack = 0.10;
};

// The options as the environment sets them: NMT_LARGE_BLOCKS unset or
// empty, the defaults; "off", none (no cache: jemalloc takes every tensor);
// a number, the slack. Anything else is a UsageError naming the value.
std::optional<LargeBlockCacheOptions> large_block_cache_options_from_env();

// Makes the cache the CPU allocator of LibTorch for the rest of the process
// (a second call changes nothing). Tensors allocated before it keep
// their allocator.
void install_large_block_cache(const LargeBlockCacheOptions& options = {});

// False until installed (and where LibTorch kept another allocator).
bool large_block_cache_installed();

// The options of the installed cache; none before.
std::optional<LargeBlockCacheOptions> large_block_cache_options();

// The cache's counts (zeros when not installed).
LargeBlockCacheStats large_block_cache_stats();

// Unmaps every free block: when the phase whose blocks they were is over
// (training, before the final averaging). The peak it bounds by stays.
void release_large_free_blocks();

// Around a one-off phase (a validation, a checkpoint written: SideArena
// calls them): the most live during it counts for the bound only while it
// lasts; at its end, free blocks unused the longest are unmapped until the
// cache is within the bound of before again. Nested phases count as one.
void large_block_phase_begins();
void large_block_phase_ends();

// The size class of a request of n bytes (at least min_bytes): n rounded up
// to an eighth of its power of two and to whole pages. For tests.
size_t large_block_class(size_t n);

}  // namespace nmt
