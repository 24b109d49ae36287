// CPU thread and allocator settings. ATen's intra-op pool (OpenMP) and
// OpenBLAS's own pool both start one thread per core by default, and idle
// OpenMP workers spin while OpenBLAS's threads want the same cores; we size
// both on purpose. bench/train_bench measures the alternatives side by side.
#pragma once

namespace nmt {

// Use n cores (n <= 0: all): OpenBLAS gets blas_threads (default n), ATen's
// pool ceil(n / 2). Returns n.
int configure_cpu_threads(int n, int blas_threads = -1);

// OpenBLAS's pool size, or -1 when the BLAS in use is not OpenBLAS.
int blas_threads();

// With `on`, glibc serves large blocks from its heap and keeps freed memory
// there, instead of mapping fresh pages for every large tensor and unmapping
// them on free: each step's [batch, len, vocab] logits and their gradients
// then stop costing page faults (the kernel zeroes every new page).
// Off restores glibc's defaults.
void keep_large_blocks_in_heap(bool on);

}  // namespace nmt
