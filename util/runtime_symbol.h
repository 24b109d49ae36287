// Functions of libraries that are reached at run time instead of linked:
// the BLAS's extensions (openblas_set_num_threads, cblas_sgemm; libblas.so.3
// is whichever library Debian's alternatives point at, OpenBLAS here) and
// jemalloc's mallctl (linked by the executables, not by the library).
// Absent symbols come back as nullptr.
#pragma once

#include <dlfcn.h>

namespace nmt {

template <typename Fn>
Fn runtime_symbol(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace nmt
