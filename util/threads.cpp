#include "util/threads.h"

#include <dlfcn.h>

#include <thread>

#include <ATen/Parallel.h>

namespace nmt {
namespace {

// OpenBLAS is reached through libblas.so.3 (alternatives), so look its
// controls up at run time instead of linking it.
template <typename Fn>
Fn blas_symbol(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace

int configure_cpu_threads(int n, int blas) {
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
  if (blas < 0) blas = n;
  if (auto set = blas_symbol<void (*)(int)>("openblas_set_num_threads")) set(blas);
  return n;
}

int blas_threads() {
  if (auto get = blas_symbol<int (*)()>("openblas_get_num_threads")) return get();
  return -1;
}

}  // namespace nmt
