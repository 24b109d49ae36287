// The process's memory allocator. The executables link jemalloc (Debian's
// libjemalloc2) in place of glibc's malloc and set it up here:
//
// - Training allocates and frees the same large tensors every step (logits,
//   their gradient, every layer's activations), in shapes that change from
//   batch to batch. glibc's malloc either maps fresh pages for each large
//   block (a page fault per 4 KiB, zeroed by the kernel: measured 1.1-1.4x
//   slower steps) or, kept in its heap, fragments that one heap until the
//   process holds several times what it uses (6.5 GB after an hour of the
//   Multi30k recipe). jemalloc's size classes keep reuse exact enough that
//   the resident set stops growing after warm-up.
// - jemalloc's own decay of unused pages purges whatever rises above its
//   recent level, which for a step that peaks and falls is most of the step's
//   memory: every page is faulted in again each step (7.5 M faults in 18
//   steps, 1.6x slower). So pages are kept (no decay), large blocks share the
//   arenas (no separate arena that purges at once), and the trainer gives
//   memory back itself where a phase ends: after a validation, after writing
//   a checkpoint, after loading a model.
//
// Builds without jemalloc (the sanitizer builds) fall back to glibc: large
// blocks kept in the heap, malloc_trim where a phase ends.
#pragma once

#include <string>

namespace nmt {

// "jemalloc 5.3.0-..." or "glibc malloc".
std::string allocator_name();

// Sets the allocator up for this process; every main calls it first.
void configure_allocator();

// Gives the free memory the allocator holds back to the system: after a
// one-off peak (a validation, a checkpoint written, a model loaded).
void release_free_memory();

// Bytes the program has allocated and not freed, in MiB, by the allocator's
// count; -1 where the allocator does not say (glibc).
double allocated_mib();

}  // namespace nmt
