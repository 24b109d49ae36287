#include "kernels/vector_isa.h"

namespace nmt::kernels {

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
  static const VectorIsa isa = cpu_supports(VectorIsa::kAvx512) ? VectorIsa::kAvx512
                               : cpu_supports(VectorIsa::kAvx2) ? VectorIsa::kAvx2
                                                                : VectorIsa::kScalar;
  return isa;
}

const char* isa_name(VectorIsa isa) {
  return isa == VectorIsa::kAvx512 ? "AVX-512" : isa == VectorIsa::kAvx2 ? "AVX2" : "scalar";
}

}  // namespace nmt::kernels
