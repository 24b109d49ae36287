// The BLAS is reached through libblas.so.3, whichever library the Debian
// alternatives system points it at (OpenBLAS here), so its extensions
// (openblas_set_num_threads, cblas_sgemm) are looked up at run time instead
// of linked: absent symbols come back as nullptr.
#pragma once

#include <dlfcn.h>

namespace nmt {

template <typename Fn>
Fn blas_symbol(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace nmt
