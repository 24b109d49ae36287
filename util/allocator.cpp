#include "util/allocator.h"

#include <malloc.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/large_block_cache.h"
#include "util/runtime_symbol.h"

#ifdef NMT_WITH_JEMALLOC
// Read by jemalloc when it starts (a definition here overrides jemalloc's
// own; a program's strong one, NMT_DECODING_ALLOCATOR, overrides this weak
// one). Why these settings: util/allocator.h.
extern "C" {
__attribute__((weak)) const char* malloc_conf = NMT_MALLOC_CONF;
}
#endif

namespace nmt {
namespace {

// jemalloc's control interface, looked up at run time: the library links no
// allocator itself (the executables do), so programs built on it without
// jemalloc (the sanitizer builds, the fuzz targets) run on glibc's malloc.
using Mallctl = int (*)(const char* name, void* old_value, size_t* old_length, void* new_value, size_t new_length);

Mallctl mallctl() {
  static const auto function = runtime_symbol<Mallctl>("mallctl");
  return function;
}

// Every arena at once: jemalloc's MALLCTL_ARENAS_ALL.
constexpr unsigned kAllArenas = 4096;

void purge(unsigned arena) {
  mallctl()(("arena." + std::to_string(arena) + ".purge").c_str(), nullptr, nullptr, nullptr, 0);
}

// The side arena, made on first use; kAllArenas where jemalloc could not.
unsigned side_arena() {
  static const unsigned arena = [] {
    unsigned index = kAllArenas;
    size_t length = sizeof(index);
    return mallctl()("arenas.create", &index, &length, nullptr, 0) == 0 ? index : kAllArenas;
  }();
  return arena;
}

}  // namespace

std::string allocator_name() {
  if (!mallctl()) return "glibc malloc";
  const char* version = nullptr;
  size_t length = sizeof(version);
  if (mallctl()("version", &version, &length, nullptr, 0) != 0 || version == nullptr) return "jemalloc";
  const char* thp = nullptr;
  length = sizeof(thp);
  const bool huge = mallctl()("opt.thp", &thp, &length, nullptr, 0) == 0 && thp && std::string(thp) == "always";
  return std::string("jemalloc ") + version + (huge ? ", huge pages" : "");
}

void configure_allocator() {
  if (mallctl()) return;  // malloc_conf did it, before the first allocation
  // glibc: large blocks from the heap, never mapped afresh, and the heap's
  // top kept up to 1 GiB: no page faults for each step's large tensors.
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

void configure_training_memory() {
  const auto options = large_block_cache_options_from_env();
  if (!options) return;
  install_large_block_cache(*options);
  if (!mallctl()) return;
  // Dirty pages go back over about a second; MADV_FREE'd ("muzzy") ones would
  // still count as resident until the kernel wants them, so none are kept.
  ssize_t dirty_ms = 1000, muzzy_ms = 0;
  unsigned arenas = 0;
  size_t length = sizeof(arenas);
  mallctl()("arenas.narenas", &arenas, &length, nullptr, 0);
  std::vector<std::string> scopes = {"arenas"};  // the default of arenas made later
  for (unsigned i = 0; i < arenas; ++i) scopes.push_back("arena." + std::to_string(i));
  for (const std::string& scope : scopes) {
    mallctl()((scope + ".dirty_decay_ms").c_str(), nullptr, nullptr, &dirty_ms, sizeof(dirty_ms));
    mallctl()((scope + ".muzzy_decay_ms").c_str(), nullptr, nullptr, &muzzy_ms, sizeof(muzzy_ms));
  }
}

void release_free_memory() {
  if (mallctl()) {
    purge(kAllArenas);
  } else {
    ::malloc_trim(0);
  }
}

SideArena::SideArena() {
  large_block_phase_begins();
  if (!mallctl()) return;
  unsigned side = side_arena();
  if (side == kAllArenas) return;
  size_t length = sizeof(previous_);
  switched_ = mallctl()("thread.arena", &previous_, &length, &side, sizeof(side)) == 0;
}

SideArena::~SideArena() {
  large_block_phase_ends();
  if (!mallctl()) {
    ::malloc_trim(0);
    return;
  }
  if (!switched_) return;
  mallctl()("thread.arena", nullptr, nullptr, &previous_, sizeof(previous_));
  purge(side_arena());
}

AllocatorStats allocator_stats() {
  AllocatorStats stats;
  if (!mallctl()) return stats;
  uint64_t epoch = 1;  // statistics are a snapshot, refreshed by writing the epoch
  size_t length = sizeof(epoch);
  if (mallctl()("epoch", &epoch, &length, &epoch, length) != 0) return stats;
  size_t value = 0;
  length = sizeof(value);
  if (mallctl()("stats.allocated", &value, &length, nullptr, 0) == 0) stats.allocated = value;
  if (mallctl()("stats.resident", &value, &length, nullptr, 0) == 0) stats.resident = value;
  return stats;
}

}  // namespace nmt
