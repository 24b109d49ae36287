// The number of CPU threads used for tensor arithmetic. ATen's pool and
// OpenBLAS's own pool are separate (PLATFORM.md); both are set together so
// that they do not oversubscribe the cores.
#pragma once

namespace nmt {

// Sets ATen's intra-op threads and, when OpenBLAS is the loaded BLAS, its pool
// to `threads` (0: one per core). Returns the number now in use.
int set_compute_threads(int threads);

}  // namespace nmt
