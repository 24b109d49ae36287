#include "kernels/vector_isa.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace nmt::kernels {
namespace {

// NMT_CPU_ISA's ISA ("avx512", "avx2", "scalar"), or `fallback` when unset;
// an unknown name is said once on stderr and ignored.
VectorIsa requested_isa(VectorIsa fallback) {
  const char* name = std::getenv("NMT_CPU_ISA");
  if (!name || !*name) return fallback;
  if (std::strcmp(name, "avx512") == 0) return VectorIsa::kAvx512;
  if (std::strcmp(name, "avx2") == 0) return VectorIsa::kAvx2;
  if (std::strcmp(name, "scalar") == 0) return VectorIsa::kScalar;
  std::cerr << "NMT_CPU_ISA=" << name << " is not avx512, avx2 or scalar: ignored\n";
  return fallback;
}

}  // namespace

bool cpu_supports(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::kAvx512:
      return __builtin_cpu_supports("avx512f");
    case VectorIsa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default:
      return true;
  }
}

VectorIsa cpu_vector_isa() {
  static const VectorIsa isa = [] {
    const VectorIsa widest = cpu_supports(VectorIsa::kAvx512) ? VectorIsa::kAvx512
                             : cpu_supports(VectorIsa::kAvx2) ? VectorIsa::kAvx2
                                                              : VectorIsa::kScalar;
    const VectorIsa asked = requested_isa(widest);
    return static_cast<int>(asked) < static_cast<int>(widest) ? asked : widest;  // never above the CPU's
  }();
  return isa;
}

const char* isa_name(VectorIsa isa) {
  return isa == VectorIsa::kAvx512 ? "AVX-512" : isa == VectorIsa::kAvx2 ? "AVX2" : "scalar";
}

}  // namespace nmt::kernels
