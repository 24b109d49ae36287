// oneDNN's primitive cache, held still while several threads use oneDNN.
//
// Debian 12's oneDNN (2.6.3, linked by its libtorch) fails now and then when
// its primitive cache evicts an entry while another thread is inside oneDNN:
// bf16 products on two threads at once threw std::bad_alloc or
// std::bad_array_new_length from brgemm kernel creation, or crashed, and the
// cache could then hand "Broken promise" to every later creation of the same
// primitive. bench/onednn_cache_race.py reproduces it with the same library
// from Python: about one failure per 4,000 products of varied shapes on two
// threads with the default capacity of 1,024 entries; none on one thread, and
// none while the capacity is large enough that nothing is evicted. Serialising
// oneDNN's primitive creation alone did not stop it.
//
// fp32 decoding does not reach oneDNN (OpenBLAS does its products); bf16's
// matrix products all do.
#pragma once

namespace nmt {

// While one lives, oneDNN's primitive cache does not evict: its capacity is
// raised far above what one call creates (oneDNN's decoding primitives are
// small: with it, 200 sentences at beam 4 peaked 9 MiB higher). When it ends - on one thread,
// after the others have stopped - the old capacity comes back, which evicts
// the cache down to it. Where oneDNN's C API is not in the process (a
// LibTorch that links oneDNN statically and hides it), it does nothing.
class PrimitiveCacheEvictionPause {
 public:
  PrimitiveCacheEvictionPause();
  ~PrimitiveCacheEvictionPause();
  PrimitiveCacheEvictionPause(const PrimitiveCacheEvictionPause&) = delete;
  PrimitiveCacheEvictionPause& operator=(const PrimitiveCacheEvictionPause&) = delete;

 private:
  int saved_capacity_ = -1;  // -1: nothing changed
};

// oneDNN's primitive cache capacity, or -1 where oneDNN's C API is not found.
int onednn_primitive_cache_capacity();

}  // namespace nmt
