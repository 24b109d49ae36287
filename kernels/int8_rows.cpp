#include "kernels/int8_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/step_team.h"
#include "kernels/vector_lanes.h"

namespace nmt::kernels {
namespace {

typedef int32_t QuantIntLanes __attribute__((vector_size(kLanes * sizeof(int32_t))));
typedef int8_t QuantByteLanes __attribute__((vector_size(kLanes * sizeof(int8_t))));

// Adding and subtracting 1.5 x 2^23 rounds a float of magnitude below 2^22 to
// an integer, to nearest with ties to even (the FPU's default mode), as
// std::nearbyint does in the scalar tail. This file is built without FMA
// contraction (CMakeLists.txt), so that x * scale is rounded to a float
// before the addition, as in the scalar tail and in ATen.
constexpr float kQuantRounder = 12582912.0f;

// q's bytes are XORed with `flip`: 0 for int8, 0x80 for the same values
// plus 128 as unsigned bytes (what VNNI's vpdpbusd multiplies).
NMT_INLINE void quantize_one_row_body(const float* x, int64_t n, uint8_t flip, int8_t* q, float* scale) {
  Lanes most = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes v = load(x + i);
    v = v < 0 ? -v : v;
    most = most > v ? most : v;
  }
  float m = 0.0f;
  for (int j = 0; j < kLanes; ++j) m = std::max(m, most[j]);
  for (; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  *scale = m / 127.0f;
  const float inverse = m > 0.0f ? 127.0f / m : 0.0f;
  const Lanes top = Lanes{} + 127.0f;
  for (i = 0; i + kLanes <= n; i += kLanes) {
    Lanes t = load(x + i) * inverse;
    t = (t + kQuantRounder) - kQuantRounder;
    t = t > top ? top : t;
    t = t < -top ? -top : t;
    const QuantByteLanes b = __builtin_convertvector(__builtin_convertvector(t, QuantIntLanes), QuantByteLanes) ^
                             static_cast<int8_t>(flip);
    std::memcpy(q + i, &b, sizeof b);
  }
  for (; i < n; ++i) {
    q[i] = static_cast<int8_t>(static_cast<int8_t>(std::clamp(std::nearbyint(x[i] * inverse), -127.0f, 127.0f)) ^
                               static_cast<int8_t>(flip));
  }
}
NMT_VECTOR_DISPATCH(void, quantize_one_row, (const float* x, int64_t n, uint8_t flip, int8_t* q, float* scale),
                    (x, n, flip, q, scale))

NMT_INLINE void dequantize_one_row_body(const int32_t* sums, int64_t n, float row_scale, const float* col_scales,
                                        const float* bias, bool relu, float* out) {
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    QuantIntLanes s;
    std::memcpy(&s, sums + c, sizeof s);
    Lanes y = __builtin_convertvector(s, Lanes) * (load(col_scales + c) * row_scale);
    if (bias) y += load(bias + c);
    if (relu) y = y > 0.0f ? y : Lanes{};
    std::memcpy(out + c, &y, sizeof y);
  }
  for (; c < n; ++c) {
    float y = static_cast<float>(sums[c]) * (col_scales[c] * row_scale);
    if (bias) y += bias[c];
    out[c] = relu ? std::max(y, 0.0f) : y;
  }
}
NMT_VECTOR_DISPATCH(void, dequantize_one_row,
                    (const int32_t* sums, int64_t n, float row_scale, const float* col_scales, const float* bias,
                     bool relu, float* out),
                    (sums, n, row_scale, col_scales, bias, relu, out))

// Below this many values a pass stays on the calling thread.
constexpr int64_t kQuantParallelValues = 1 << 15;

}  // namespace

void quantize_rows(const float* x, int64_t rows, int64_t n, int8_t* q, float* scales) {
  for (int64_t r = 0; r < rows; ++r) quantize_one_row(x + r * n, n, 0, q + r * n, scales + r);
}

void quantize_rows_shifted(const float* x, int64_t rows, int64_t n, int64_t padded, uint8_t* u, float* scales) {
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* row = u + r * padded;
    quantize_one_row(x + r * n, n, 0x80, reinterpret_cast<int8_t*>(row), scales + r);
    std::memset(row + n, 0x80, static_cast<size_t>(padded - n));
  }
}

void dequantize_rows(const int32_t* sums, int64_t rows, int64_t n, const float* row_scales, const float* col_scales,
                     const float* bias, bool relu, float* out) {
  const auto run = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      dequantize_one_row(sums + r * n, n, row_scales[r], col_scales, bias, relu, out + r * n);
    }
  };
  if (rows * n < kQuantParallelValues) {
    run(0, rows);
  } else {
    parallel_range(0, rows, std::max<int64_t>(1, kQuantParallelValues / std::max<int64_t>(n, 1)), run);
  }
}

}  // namespace nmt::kernels
