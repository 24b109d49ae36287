// Float vectors for loops the compiler vectorizes (GCC's vector extension),
// in two forms:
// - 16 floats (one AVX-512 register, two AVX2 or four SSE ones) in functions
//   built for AVX-512, AVX2 and plain x86-64, one picked at run time
//   (NMT_VECTOR_DISPATCH below; the product is built for plain x86-64): used
//   by kernels/step_attention.cpp, residual_norm.cpp and int8_rows.cpp.
//   Where a loop keeps many of them live, the AVX2 and plain builds spill
//   them to the stack (step_product's sums did: 13x slower on AVX2);
// - W floats (Vec<W>), for a kernel written once as a template and compiled
//   into one function per instruction set that callers (and tests) choose by
//   kernels::VectorIsa: W = 16 inside a target("avx512f") function, 8 inside a
//   target("avx2,fma") one, 4 or 1 for plain code (kernels/log_softmax.cpp,
//   and kernels/step_product.cpp inside NMT_VECTOR_DISPATCH's builds).
#pragma once

#include <cstdint>
#include <cstring>

#include <c10/util/BFloat16.h>

#include "kernels/vector_isa.h"

// NMT_VECTOR_DISPATCH(ret, name, (params), (args)) defines `ret name params`
// from an NMT_INLINE `name##_body` of the same parameters, built three times
// (for AVX-512, for AVX2 with FMA, for plain x86-64), calling the build that
// kernels::cpu_vector_isa() names: the CPU's widest, or the one NMT_CPU_ISA
// forces down to.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
// Each build must get its own copy of the loops, not a call to a shared one.
// Those inlined helpers pass 16-float vectors by value: GCC's note that the
// ABI of such calls differs between ISAs concerns no call that remains.
#pragma GCC diagnostic ignored "-Wpsabi"
#define NMT_INLINE inline __attribute__((always_inline))
#define NMT_VECTOR_DISPATCH(ret, name, params, args)                                       \
  __attribute__((target("avx512f"))) ret name##_avx512 params { return name##_body args; } \
  __attribute__((target("avx2,fma"))) ret name##_avx2 params { return name##_body args; }  \
  ret name##_plain params { return name##_body args; }                                     \
  ret name params {                                                                        \
    switch (::nmt::kernels::cpu_vector_isa()) {                                            \
      case ::nmt::kernels::VectorIsa::kAvx512:                                             \
        return name##_avx512 args;                                                         \
      case ::nmt::kernels::VectorIsa::kAvx2:                                               \
        return name##_avx2 args;                                                           \
      default:                                                                             \
        return name##_plain args;                                                          \
    }                                                                                      \
  }
#else
#define NMT_INLINE inline
#define NMT_VECTOR_DISPATCH(ret, name, params, args) \
  ret name params { return name##_body args; }
#endif

namespace nmt::kernels {

constexpr int kLanes = 16;
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));
typedef uint16_t HalfLanes __attribute__((vector_size(kLanes * sizeof(uint16_t))));
typedef uint32_t WordLanes __attribute__((vector_size(kLanes * sizeof(uint32_t))));

NMT_INLINE Lanes load(const float* x) {
  Lanes v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

NMT_INLINE Lanes load(const c10::BFloat16* x) {  // bf16 is fp32's upper half
  HalfLanes half;
  std::memcpy(&half, x, sizeof half);
  const WordLanes words = __builtin_convertvector(half, WordLanes) << 16;
  Lanes v;
  std::memcpy(&v, &words, sizeof v);
  return v;
}

NMT_INLINE float lanes_sum(Lanes v) {
  float s = 0.0f;
  for (int j = 0; j < kLanes; ++j) s += v[j];
  return s;
}

template <int W>
struct Vec {
  typedef float F __attribute__((vector_size(W * sizeof(float))));
  typedef int32_t I __attribute__((vector_size(W * sizeof(int32_t))));
};

template <int W>
NMT_INLINE typename Vec<W>::F load_lanes(const float* x) {
  typename Vec<W>::F v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

template <int W>
NMT_INLINE void store_lanes(float* x, typename Vec<W>::F v) {
  std::memcpy(x, &v, sizeof v);
}

// The lanes of v folded into one by `fold` (halves combined until one lane
// is left): W - 1 vector operations in log2(W) steps.
template <int W, class Fold>
NMT_INLINE float fold_halves(typename Vec<W>::F v, Fold fold) {
  if constexpr (W == 1) {
    return v[0];
  } else {
    typename Vec<W / 2>::F lo, hi;
    std::memcpy(&lo, &v, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
    return fold_halves<W / 2>(fold(lo, hi), fold);
  }
}

struct LaneMax {
  template <class V>
  NMT_INLINE V operator()(V a, V b) const { return a > b ? a : b; }
};
struct LaneSum {
  template <class V>
  NMT_INLINE V operator()(V a, V b) const { return a + b; }
};

// The largest lane (a NaN lane may be passed over) and the lanes' sum.
template <int W>
NMT_INLINE float max_of(typename Vec<W>::F v) {
  return fold_halves<W>(v, LaneMax());
}
template <int W>
NMT_INLINE float sum_of(typename Vec<W>::F v) {
  return fold_halves<W>(v, LaneSum());
}

}  // namespace nmt::kernels
