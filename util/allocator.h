// The process's memory allocator. The executables link jemalloc (Debian's
// libjemalloc2) in place of glibc's malloc and set it up here:
//
// - Training allocates and frees the same large tensors every step (logits,
//   their gradient, every layer's activations), in shapes that change from
//   batch to batch. glibc's malloc either maps fresh pages for each large
//   block (a page fault per 4 KiB, zeroed by the kernel: 1.1-1.4x slower
//   steps, measured when the heap began keeping them) or, kept in its heap,
//   fragments that one heap until the process holds several times what it
//   uses (6.5 GB after an hour of the Multi30k recipe). jemalloc's size
//   classes keep reuse exact enough that the resident set stops growing
//   after warm-up.
// - jemalloc's own decay of unused pages purges whatever rises above its
//   recent level, which for a step that peaks and falls is most of the step's
//   memory: every page is faulted in again each step (7.2-7.6 M page faults
//   in 18 steps against 0.3 M, 0.66-0.70x the speed). So pages are kept (no
//   decay) and large blocks share the arenas (no separate arena that purges
//   at once).
// - With pages kept, the resident set is the most the step's blocks ever
//   spanned in their arena, and that layout settles after warm-up. A one-off
//   phase in between (a validation, writing a checkpoint) would split it
//   anew, and giving all free pages back afterwards lets the next steps lay
//   their blocks out afresh: measured +342 MiB for good after the recipe's
//   first checkpoint. So such a phase allocates from an arena of its own
//   (SideArena), whose pages go back to the system when it ends, and the
//   training step's arena is left as it was.
//
// The trainer's tensors of 256 KiB and more bypass all this: they come from a
// cache of mapped blocks bounded by the most ever live at once
// (util/large_block_cache.h), because jemalloc's layout of them still drifted
// up to 30% above what the steps needed.
//
// Builds without jemalloc (the sanitizer builds) fall back to glibc: large
// blocks kept in the heap, malloc_trim where a phase ends.
#pragma once

#include <cstdint>
#include <string>

namespace nmt {

// "jemalloc 5.3.0-..." or "glibc malloc".
std::string allocator_name();

// Sets the allocator up for this process; every main calls it first.
void configure_allocator();

// The trainer's set-up, after configure_allocator: tensors of 256 KiB and
// more from the large-block cache (as NMT_LARGE_BLOCKS says,
// util/large_block_cache.h), and jemalloc, left with the small blocks only,
// gives pages unused for about a second back (no decay was for the large
// tensors' sake; small blocks of ever-new shapes otherwise spread its layout
// by a few MiB a minute). Without the cache (NMT_LARGE_BLOCKS=off) nothing
// changes.
void configure_training_memory();

// Gives the free memory the allocator holds back to the system: after a
// one-off peak (a validation, a checkpoint written, a model loaded).
void release_free_memory();

// While it lives, the calling thread allocates from an arena kept for one-off
// phases; at its end the thread goes back to its own arena and that arena's
// free pages go back to the system. Blocks allocated inside and freed later
// return to the side arena (and to the system at the next phase's end).
// Without jemalloc: nothing, then malloc_trim at the end.
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

// Bytes the program has allocated and not freed, in MiB, by the allocator's
// count; -1 where the allocator does not say (glibc).
double allocated_mib();

// The allocator's counts, in bytes; zeros where it keeps none (glibc).
struct AllocatorStats {
  uint64_t allocated = 0;  // live bytes the program asked for
  uint64_t resident = 0;   // pages the allocator holds in memory, its free ones included
};
AllocatorStats allocator_stats();

// The calling thread's allocated-minus-freed bytes: the most they reached
// since the last reset (jemalloc's thread.peak); 0 without jemalloc.
void reset_thread_peak();
uint64_t thread_peak_bytes();

}  // namespace nmt
