// exp of W floats at once (kernels/vector_lanes.h's Vec<W>), for kernels
// that exponentiate many values: a log-sum-exp's (kernels/log_softmax.cpp),
// a softmax's (kernels/step_attention.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/vector_lanes.h"

namespace nmt::kernels {

// Arguments below this are taken as it (exp < 2e-38, nothing beside a
// softmax's or log-sum-exp's largest term of 1): 2^n stays a normal float,
// and -inf gives a negligible term instead of a NaN.
inline constexpr float kMinExpArg = -87.0f;

// Cephes' single-precision exp: x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in
// two so that n ln2 is exact), exp(r) by a degree-7 polynomial, 2^n through the
// exponent bits. Relative error ~1e-7.
template <int W>
NMT_INLINE typename Vec<W>::F exp_lanes(typename Vec<W>::F x) {
  using F = typename Vec<W>::F;
  using I = typename Vec<W>::I;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kExpP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                             4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  // Adding and subtracting 1.5 x 2^23 rounds a float of magnitude below 2^22
  // to the nearest integer (ties to even): the float's last place is then 1.
  constexpr float kRoundingShift = 12582912.0f;
  const F floor_arg = F{} + kMinExpArg;
  x = x > floor_arg ? x : floor_arg;  // NaN becomes the floor too
  const F n = (x * kLog2e + kRoundingShift) - kRoundingShift;
  const F r = (x - n * kLn2Hi) - n * kLn2Lo;
  F p = F{} + kExpP[0];
  for (int i = 1; i < 6; ++i) p = p * r + kExpP[i];
  p = p * (r * r) + (r + 1.0f);
  const I two_n = (__builtin_convertvector(n, I) + 127) << 23;
  F scale;
  std::memcpy(&scale, &two_n, sizeof scale);
  return p * scale;
}

}  // namespace nmt::kernels
