// CPU thread settings. ATen's intra-op pool and OpenBLAS's own pool both start
// one thread per core; both busy at once oversubscribe the cores. We give ATen
// the requested count and OpenBLAS the same (it is called from one ATen thread
// at a time in our workloads); bench/train_bench measures the alternatives.
#pragma once

namespace nmt {

// n <= 0 means all cores. Returns the count applied.
int configure_cpu_threads(int n, int blas_threads = -1);

// OpenBLAS's pool size, or -1 when the BLAS in use is not OpenBLAS.
int blas_threads();

}  // namespace nmt
