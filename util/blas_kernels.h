// Which kernels OpenBLAS runs. Debian's OpenBLAS (0.3.21, DYNAMIC_ARCH)
// picks its kernels once, when the library loads, from the CPU's model
// number; a CPU newer than its table (a 2-core Intel Xeon with AMX, model
// 207, in a KVM guest) falls back to "Prescott", the SSE3 kernels: a 1024^3
// fp32 product on one thread then ran at 16.7 GFLOP/s against 106.6 with the
// AVX-512 ("SkylakeX") kernels the CPU runs, and fp32 training at 368 against
// 1,241 target tokens/s (docs/performance.md). Only the environment variable
// OPENBLAS_CORETYPE, read at load, changes the choice, so the trainer (and
// the training benches) start themselves again with it set when OpenBLAS
// fell back that far. The translator does not: decoding runs its products on
// oneDNN and our kernels (its speed did not move), and starting again costs
// it 0.6-0.8 s of loading LibTorch a second time on every call.
#pragma once

#include <string>

namespace nmt {

// The vector instructions this CPU (and its operating system) runs.
struct CpuVectors {
  bool avx512 = false;    // AVX-512 F, BW, DQ and VL: OpenBLAS's SkylakeX kernels
  bool avx2_fma = false;  // AVX2 and FMA: its Haswell kernels
};

// (kernels/vector_isa.h asks the same of the CPU for our kernels; util sits
// below kernels, and OpenBLAS's SkylakeX also needs BW, DQ and VL.)
CpuVectors this_cpu_vectors();

// The kernels to ask OpenBLAS for when it chose `chosen` (its core name) on
// a CPU with `cpu`: "SkylakeX" or "Haswell" where `chosen` is one of its
// pre-AVX fallbacks (Prescott, Core2, Penryn, Dunnington, Nehalem, Atom,
// Katmai, Coppermine, Northwood, Banias) and the CPU runs those wider
// kernels; "" (keep its choice) otherwise, and for any name it does not know.
std::string blas_core_to_ask_for(const std::string& chosen, const CpuVectors& cpu);

// Called first in main: when OpenBLAS is loaded, OPENBLAS_CORETYPE is unset
// and blas_core_to_ask_for names better kernels, sets OPENBLAS_CORETYPE to
// them (and NMT_BLAS_FALLBACK_CORE to OpenBLAS's own choice) and starts this
// executable again with the same arguments; otherwise, or if that fails,
// returns and the run goes on as it is.
void rerun_with_fitting_blas_kernels(char** argv);

// OpenBLAS's kernels for the log ("SkylakeX", or "SkylakeX, asked for:
// OpenBLAS took this CPU for Prescott"); "" when the BLAS is not OpenBLAS.
std::string blas_kernels_description();

}  // namespace nmt
