#include "util/threads.h"

#include <dlfcn.h>

#include <algorithm>
#include <thread>

#include <ATen/Parallel.h>

namespace nmt {

int set_compute_threads(int threads) {
  int n = threads;
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
  // OpenBLAS is reached through libblas.so.3 when the alternatives point at
  // it; its setter is looked up instead of linked so other BLASes still work.
  using SetThreads = void (*)(int);
  if (auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(n);
  return at::get_num_threads();
}

}  // namespace nmt
