// oneDNN's primitive cache, kept from evicting in processes that run oneDNN
// from several threads.
//
// Debian 12's oneDNN (2.6.3, linked by its libtorch) fails in bf16 once its
// primitive cache has evicted entries that several threads created and used:
// std::bad_alloc or std::bad_array_new_length from brgemm kernel creation,
// then "Broken promise" for every thread waiting on that primitive, or a
// crash. bench/onednn_cache_race.py reproduces it from Python on the same
// library (two threads, 16,000 products of varied shapes: 4 failed with the
// default capacity of 1,024, none with a capacity that never evicts, none on
// one thread). Decoding 64-line rounds in two parallel batches failed within
// 12-60 rounds whether the cache evicted during the rounds or only between
// them, with fresh threads per round or long-lived ones, and at once when the
// cache was emptied between rounds; with nothing evicted, 0 failures in 2,000
// rounds. Serialising oneDNN's primitive creation did not help.
//
// Decoding's matrix products all run in oneDNN, in every precision (fp32 on
// packed weights under decoding's thread plan, kernels/packed_linear.h).
#pragma once

namespace nmt::kernels {

// Raises oneDNN's primitive cache capacity so far that it never evicts, for
// the rest of the process (later calls do nothing). The cache then grows with
// every product shape the process meets: decoding 2,000 server-like rounds
// of 1-64 random lines in bf16 (the d256 model) took the resident memory from
// 274 to 946 MiB, still rising slowly. Where oneDNN's C API is not in the
// process (a LibTorch that links oneDNN statically and hides it), it does
// nothing.
void keep_onednn_primitives();

// oneDNN's primitive cache capacity, or -1 where oneDNN's C API is not found.
int onednn_primitive_cache_capacity();

}  // namespace nmt::kernels
