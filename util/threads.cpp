#include "util/threads.h"

#include <algorithm>
#include <thread>

#include <ATen/Parallel.h>

#include "util/runtime_symbol.h"

namespace nmt {

int cores_to_use(int n) { return n > 0 ? n : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

ThreadPlan configure_cpu_threads(int n, Precision precision, int blas) {
  n = cores_to_use(n);
  ThreadPlan plan;
  plan.cores = n;
  if (precision == Precision::kBf16) {
    // oneDNN's bf16 products run on ATen's pool: it gets every core. On 2
    // cores 2 ATen threads trained 1.2-1.5x faster than 1; 1 or 2 OpenBLAS
    // threads measured the same (bench/train_bench --precision bf16).
    plan.aten = n;
    plan.blas = 1;
  } else {
    // Matrix products (OpenBLAS) get every core; ATen's element-wise pool gets
    // half: on 2 cores 1 ATen x 2 OpenBLAS threads trained 1.4-1.8x faster than
    // 2 x 2 (bench/train_bench): an idle OpenMP worker spins on a core OpenBLAS needs.
    plan.aten = std::max(1, (n + 1) / 2);
    plan.blas = n;
  }
  if (blas >= 1) plan.blas = blas;
  at::set_num_threads(plan.aten);
  set_blas_threads(plan.blas);
  return plan;
}

ThreadPlan configure_decoding_threads(int n, int blas) {
  ThreadPlan plan;
  plan.cores = plan.aten = cores_to_use(n);
  plan.blas = blas >= 1 ? blas : 1;
  at::set_num_threads(plan.aten);
  set_blas_threads(plan.blas);
  return plan;
}

int blas_threads() {
  // Looked up once: decoding asks at every linear layer (model/inference_weights).
  static const auto get = runtime_symbol<int (*)()>("openblas_get_num_threads");
  return get ? get() : -1;
}

void set_blas_threads(int n) {
  static const auto set = runtime_symbol<void (*)(int)>("openblas_set_num_threads");
  if (set) set(n);
}

RestoreThreadSettings::RestoreThreadSettings() : aten_(at::get_num_threads()), blas_(blas_threads()) {}

RestoreThreadSettings::~RestoreThreadSettings() {
  at::set_num_threads(aten_);
  if (blas_ > 0) set_blas_threads(blas_);
}

DecodingThreads::DecodingThreads() { configure_decoding_threads(std::max(at::get_num_threads(), blas_threads())); }

}  // namespace nmt
