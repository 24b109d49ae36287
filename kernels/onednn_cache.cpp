#include "kernels/onednn_cache.h"

#include <dlfcn.h>

#include <mutex>

namespace nmt::kernels {
namespace {

// oneDNN's C API (dnnl.h), looked up at run time: libtorch-dev ships no
// oneDNN headers, and a LibTorch with oneDNN linked in statically hides it.
using GetCapacity = int (*)(int*);
using SetCapacity = int (*)(int);
constexpr int kDnnlSuccess = 0;
constexpr int kNeverEvicts = 1 << 30;

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

void keep_onednn_primitives() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto set = onednn_symbol<SetCapacity>("dnnl_set_primitive_cache_capacity");
    if (set != nullptr) set(kNeverEvicts);
  });
}

}  // namespace nmt::kernels
