#include "kernels/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <immintrin.h>

#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace nmt::kernels {
namespace {

// Cephes' single-precision exp: x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in
// two so that n ln2 is exact), exp(r) by a degree-7 polynomial, 2^n through the
// exponent bits. Relative error ~1e-7. Arguments below -87 (exp < 2e-38, nothing
// beside the row maximum's 1) are taken as -87: 2^n stays a normal float, and
// -inf gives a negligible term instead of a NaN.
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kExpP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                           4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
constexpr float kMinExpArg = -87.0f;
// The exps of a row are summed in float in blocks of this many values (16 or
// 8 lanes of 16 or 32 terms each), the blocks in double: the sum's error
// stays ~1e-7 relative however long the row.
constexpr int64_t kBlock = 256;

__attribute__((target("avx512f"))) __m512 exp_avx512(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(kMinExpArg));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kExpP[0]);
  for (int i = 1; i < 6; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP[i]));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __m512i two_n = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(p, _mm512_castsi512_ps(two_n));
}

__attribute__((target("avx512f"))) float log_sum_exp_avx512(const float* x, int64_t n) {
  __m512 vmax = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(x + i));
  float m = _mm512_reduce_max_ps(vmax);
  for (int64_t j = i; j < n; ++j) m = std::max(m, x[j]);
  if (m == -std::numeric_limits<float>::infinity()) return m;
  const __m512 vm = _mm512_set1_ps(m);
  double sum = 0;  // float sums of blocks of kBlock values, added in double
  for (i = 0; i < n; i += kBlock) {
    const int64_t end = std::min(n, i + kBlock);
    __m512 vsum = _mm512_setzero_ps();
    int64_t j = i;
    for (; j + 16 <= end; j += 16) vsum = _mm512_add_ps(vsum, exp_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + j), vm)));
    if (j < end) {
      const __mmask16 tail = static_cast<__mmask16>((1u << (end - j)) - 1);
      const __m512 rest = _mm512_maskz_sub_ps(tail, _mm512_maskz_loadu_ps(tail, x + j), vm);
      vsum = _mm512_add_ps(vsum, _mm512_maskz_mov_ps(tail, exp_avx512(rest)));
    }
    sum += _mm512_reduce_add_ps(vsum);
  }
  return m + static_cast<float>(std::log(sum));
}

__attribute__((target("avx512f"))) void subtract_avx512(float* x, int64_t n, float c) {
  const __m512 vc = _mm512_set1_ps(c);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, _mm512_sub_ps(_mm512_loadu_ps(x + i), vc));
  for (; i < n; ++i) x[i] -= c;
}

__attribute__((target("avx2,fma"))) __m256 exp_avx2(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(kMinExpArg));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kExpP[0]);
  for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP[i]));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i two_n = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(two_n));
}

__attribute__((target("avx2,fma"))) float horizontal_avx2(__m256 v, bool max) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  float r = lanes[0];
  for (int i = 1; i < 8; ++i) r = max ? std::max(r, lanes[i]) : r + lanes[i];
  return r;
}

__attribute__((target("avx2,fma"))) float log_sum_exp_avx2(const float* x, int64_t n) {
  __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + i));
  float m = horizontal_avx2(vmax, true);
  for (int64_t j = i; j < n; ++j) m = std::max(m, x[j]);
  if (m == -std::numeric_limits<float>::infinity()) return m;
  const __m256 vm = _mm256_set1_ps(m);
  double sum = 0;  // float sums of blocks of kBlock values, added in double
  for (i = 0; i < n; i += kBlock) {
    const int64_t end = std::min(n, i + kBlock);
    __m256 vsum = _mm256_setzero_ps();
    int64_t j = i;
    for (; j + 8 <= end; j += 8) vsum = _mm256_add_ps(vsum, exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm)));
    sum += horizontal_avx2(vsum, false);
    for (; j < end; ++j) sum += std::exp(std::max(x[j] - m, kMinExpArg));
  }
  return m + static_cast<float>(std::log(sum));
}

float log_sum_exp_scalar(const float* x, int64_t n) {
  const float m = *std::max_element(x, x + n);
  if (m == -std::numeric_limits<float>::infinity()) return m;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - m);
  return m + static_cast<float>(std::log(sum));
}

void log_softmax_row(float* x, int64_t n, VectorIsa isa) {
  const float lse = log_sum_exp(x, n, isa);
  if (lse == -std::numeric_limits<float>::infinity()) return;  // every entry -inf: left as it is
  if (isa == VectorIsa::kAvx512) return subtract_avx512(x, n, lse);
  for (int64_t i = 0; i < n; ++i) x[i] -= lse;
}

}  // namespace

float log_sum_exp(const float* x, int64_t n, VectorIsa isa) {
  TORCH_CHECK(cpu_supports(isa), "this CPU does not run ", isa_name(isa));
  switch (isa) {
    case VectorIsa::kAvx512:
      return log_sum_exp_avx512(x, n);
    case VectorIsa::kAvx2:
      return log_sum_exp_avx2(x, n);
    default:
      return log_sum_exp_scalar(x, n);
  }
}

void log_softmax_rows_(torch::Tensor& scores, VectorIsa isa) {
  TORCH_CHECK(cpu_supports(isa), "this CPU does not run ", isa_name(isa));
  TORCH_CHECK(scores.dim() == 2 && scores.scalar_type() == torch::kFloat && scores.is_contiguous() &&
                  scores.device().is_cpu(),
              "log_softmax_rows_ takes contiguous [rows, columns] float scores on the CPU, got ", scores.sizes(), " ",
              scores.scalar_type());
  const int64_t rows = scores.size(0), columns = scores.size(1);
  if (rows == 0 || columns == 0) return;
  float* data = scores.data_ptr<float>();
  // A thread takes at least ~16k values: fewer do not repay waking it.
  const int64_t grain = std::max<int64_t>(1, 16384 / columns);
  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) log_softmax_row(data + r * columns, columns, isa);
  });
}

}  // namespace nmt::kernels
