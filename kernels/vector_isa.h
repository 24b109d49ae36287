// Which vector instructions the hand-vectorized kernels (kernels/log_softmax.h,
// kernels/top_k.h, and those built with NMT_VECTOR_DISPATCH, vector_lanes.h)
// use: the widest this CPU runs, chosen at run time so that one build serves
// every x86-64 machine. Tests run each one the CPU supports.
#pragma once

namespace nmt::kernels {

enum class VectorIsa { kScalar, kAvx2, kAvx512 };

// AVX-512 (avx512f) where the CPU has it, else AVX2 with FMA, else scalar;
// lower where the environment's NMT_CPU_ISA (avx512, avx2 or scalar) asks,
// so that one CPU runs the kernels every CPU would (scripts/test_isa.sh).
// Read once.
VectorIsa cpu_vector_isa();

// True when this CPU runs `isa`'s instructions.
bool cpu_supports(VectorIsa isa);

const char* isa_name(VectorIsa isa);

}  // namespace nmt::kernels
