// The process's memory allocator. The executables link jemalloc (Debian's
// libjemalloc2) in place of glibc's malloc and set it up here:
//
// - Decoding and training allocate and free the same large tensors at every
//   step, in shapes that change from batch to batch. glibc's malloc either
//   maps fresh pages for each large block (a page fault per 4 KiB, zeroed by
//   the kernel: 1.1-1.4x slower training steps) or, kept in its heap,
//   fragments that one heap until the process holds several times what it
//   uses (6.5 GB after an hour of the Multi30k recipe).
// - jemalloc's own decay of unused pages purges whatever rises above its
//   recent level, which for a step that peaks and falls is most of the step's
//   memory: every page is faulted in again each step (7.2-7.6 M page faults
//   in 18 training steps against 0.3 M, 0.66-0.70x the speed). So by default
//   pages are kept (no decay) and large blocks share the arenas.
// - A one-off phase (a validation, writing a checkpoint) allocates from an
//   arena of its own (SideArena), whose pages go back to the system when it
//   ends, leaving the steps' blocks where they were.
//
// The trainer goes further (configure_training_memory): with pages kept,
// jemalloc's layout of the large tensors still drifted up to 30% above what
// the steps needed, so its tensors of 256 KiB and more come from a cache of
// mapped blocks bounded by the most ever live at once
// (util/large_block_cache.h), and jemalloc, left with the small blocks,
// decays their unused pages after about a second.
//
// Decoding programs (the translator, server included, and decode_bench) also
// ask jemalloc for transparent huge pages (NMT_DECODING_ALLOCATOR): each step
// reads every sentence's attention caches, megabytes of them spread over
// thousands of 4 KiB pages, from beyond the L2 cache. With huge pages int8
// decoding of batches of 32 ran 3-14% faster on the 2-core Zen 5, for
// 30-60 MiB more at the peak; the trainer keeps 4 KiB pages (its memory
// budget, above).
//
// Builds without jemalloc (the sanitizer builds) fall back to glibc: large
// blocks kept in the heap, malloc_trim where a phase ends.
#pragma once

#include <cstdint>
#include <string>

// jemalloc's settings, read before main from the program's `malloc_conf`:
// the library defines it (weakly) as NMT_MALLOC_CONF; a decoding program's
// main file says NMT_DECODING_ALLOCATOR once, at file scope, for its own.
// The MALLOC_CONF environment variable overrides either.
#define NMT_MALLOC_CONF "dirty_decay_ms:-1,muzzy_decay_ms:-1,oversize_threshold:0"
#define NMT_DECODING_MALLOC_CONF NMT_MALLOC_CONF ",thp:always"
#define NMT_DECODING_ALLOCATOR                        \
  extern "C" {                                        \
  const char* malloc_conf = NMT_DECODING_MALLOC_CONF; \
  }

namespace nmt {

// "jemalloc 5.3.0-..." (with ", huge pages" where it asks for them) or "glibc malloc".
std::string allocator_name();

// Sets the allocator up for this process; every main calls it first.
void configure_allocator();

// The trainer's set-up, after configure_allocator: tensors of 256 KiB and
// more from the large-block cache (as NMT_LARGE_BLOCKS says), and jemalloc,
// left with the small blocks only, gives pages unused for about a second
// back (no decay was for the large tensors' sake; small blocks of ever-new
// shapes otherwise spread its layout by 0.7 MiB a step in the memory test).
// Without the cache (NMT_LARGE_BLOCKS=off) nothing changes.
void configure_training_memory();

// Gives the free memory the allocator holds back to the system: after a
// one-off peak (a validation, a checkpoint written, a model loaded).
void release_free_memory();

// While it lives, the calling thread allocates from an arena kept for one-off
// phases; at its end the thread goes back to its own arena and that arena's
// free pages go back to the system. Blocks allocated inside and freed later
// return to the side arena (and to the system at the next phase's end).
// Without jemalloc: nothing, then malloc_trim at the end. Where the
// large-block cache is installed, the phase's large tensors do not raise its
// bound for good: at the end it trims back to the bound of before.
class SideArena {
 public:
  SideArena();
  ~SideArena();
  SideArena(const SideArena&) = delete;
  SideArena& operator=(const SideArena&) = delete;

 private:
  unsigned previous_ = 0;
  bool switched_ = false;
};

// The allocator's counts, in bytes; zeros where it keeps none (glibc).
struct AllocatorStats {
  uint64_t allocated = 0;  // live bytes the program asked for
  uint64_t resident = 0;   // pages the allocator holds in memory, its free ones included
};
AllocatorStats allocator_stats();

}  // namespace nmt
