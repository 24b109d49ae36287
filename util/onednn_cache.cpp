#include "util/onednn_cache.h"

#include <dlfcn.h>

namespace nmt {
namespace {

// oneDNN's C API (dnnl.h), looked up at run time: libtorch-dev ships no
// oneDNN headers, and a LibTorch with oneDNN linked in statically hides it.
using GetCapacity = int (*)(int*);
using SetCapacity = int (*)(int);
constexpr int kDnnlSuccess = 0;
// Far above one call's primitives: translating the 1,014 Multi30k validation
// lines (one call) with the base model in bf16 created 1,387.
constexpr int kPausedCapacity = 1 << 20;

template <typename Fn>
Fn onednn_symbol(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace

int onednn_primitive_cache_capacity() {
  static const auto get = onednn_symbol<GetCapacity>("dnnl_get_primitive_cache_capacity");
  int capacity = -1;
  if (get == nullptr || get(&capacity) != kDnnlSuccess) return -1;
  return capacity;
}

PrimitiveCacheEvictionPause::PrimitiveCacheEvictionPause() {
  static const auto set = onednn_symbol<SetCapacity>("dnnl_set_primitive_cache_capacity");
  const int capacity = onednn_primitive_cache_capacity();
  if (set == nullptr || capacity < 0 || capacity >= kPausedCapacity) return;
  if (set(kPausedCapacity) == kDnnlSuccess) saved_capacity_ = capacity;
}

PrimitiveCacheEvictionPause::~PrimitiveCacheEvictionPause() {
  static const auto set = onednn_symbol<SetCapacity>("dnnl_set_primitive_cache_capacity");
  if (saved_capacity_ >= 0) set(saved_capacity_);
}

}  // namespace nmt
