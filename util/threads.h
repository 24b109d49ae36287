// CPU thread settings. ATen's intra-op pool (OpenMP) and
// OpenBLAS's own pool both start one thread per core by default, and idle
// OpenMP workers spin while OpenBLAS's threads want the same cores; we size
// both on purpose. bench/train_bench measures the alternatives side by side.
#pragma once

#include "util/precision.h"

namespace nmt {

struct ThreadPlan {
  int cores = 1;  // cores used
  int aten = 1;   // ATen's OpenMP pool: element-wise ops, and oneDNN's bf16 matrix products
  int blas = 1;   // OpenBLAS's pool: fp32 matrix products
};

// n cores, or (n <= 0) every core of the machine.
int cores_to_use(int n);

// Use n cores (n <= 0: all), split for the precision that does the heavy work.
// fp32: OpenBLAS gets n threads (or blas_threads when >= 1), ATen ceil(n / 2).
// bf16: oneDNN runs the matrix products on ATen's pool, which gets n threads;
// OpenBLAS, left with little, gets one.
ThreadPlan configure_cpu_threads(int n, Precision precision = Precision::kFp32, int blas_threads = -1);

// Decoding's plan, whatever the precision: ATen's pool gets the n cores
// (oneDNN runs every matrix product there: bf16, and fp32 on packed weights,
// kernels/inference_weights.h) and OpenBLAS one thread (or blas_threads when
// >= 1). Training's fp32 plan (1 ATen x 2 OpenBLAS threads on 2 cores) made
// fp32 decoding of one batch 2.4-4.7x slower than this on an Intel Xeon with
// AMX (bench/decode_bench, docs/performance.md), and 2 x 2 oversubscribes.
ThreadPlan configure_decoding_threads(int n, int blas_threads = -1);

// OpenBLAS's pool size, or -1 when the BLAS in use is not OpenBLAS.
int blas_threads();

// Sets OpenBLAS's pool size (nothing when the BLAS is not OpenBLAS).
void set_blas_threads(int n);

// While it lives, nothing; at its end ATen's intra-op pool (of the calling
// thread) and OpenBLAS's pool are put back as they were at its start.
class RestoreThreadSettings {
 public:
  RestoreThreadSettings();
  ~RestoreThreadSettings();
  RestoreThreadSettings(const RestoreThreadSettings&) = delete;
  RestoreThreadSettings& operator=(const RestoreThreadSettings&) = delete;

 private:
  int aten_, blas_;
};

// While it lives, decoding's plan (configure_decoding_threads) on the cores
// the current plan uses: training's validation runs its products without
// autograd, and those run on ATen's pool in fp32 too (kernels/step_product.h),
// which training's fp32 plan keeps to half the cores.
class DecodingThreads {
 public:
  DecodingThreads();

 private:
  RestoreThreadSettings restore_;
};

}  // namespace nmt
