#include "kernels/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "kernels/step_team.h"
#include "kernels/vector_exp.h"
#include "kernels/vector_lanes.h"

namespace nmt::kernels {
namespace {

// The exps of a row are summed in float in blocks of this many values (W
// lanes of 256 / W terms each), the blocks in double: the sum's error stays
// ~1e-7 relative however long the row.
constexpr int64_t kBlock = 256;

// log(sum(exp(x))) of n floats, W at a time; the last partial vector's
// missing lanes count nothing.
template <int W>
NMT_INLINE float log_sum_exp_lanes(const float* x, int64_t n) {
  using F = typename Vec<W>::F;
  using I = typename Vec<W>::I;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  F vmax = F{} + kNegInf;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const F v = load_lanes<W>(x + i);
    vmax = v > vmax ? v : vmax;
  }
  float m = max_of<W>(vmax);
  for (int64_t j = i; j < n; ++j) m = std::max(m, x[j]);
  if (m == kNegInf) return m;
  I lane{};
  for (int j = 0; j < W; ++j) lane[j] = j;
  double sum = 0;  // float sums of blocks of kBlock values, added in double
  for (i = 0; i < n; i += kBlock) {
    const int64_t end = std::min(n, i + kBlock);
    F block{};
    int64_t j = i;
    for (; j + W <= end; j += W) block += exp_lanes<W>(load_lanes<W>(x + j) - m);
    if (j < end) {
      F rest = F{} + kNegInf;
      std::memcpy(&rest, x + j, static_cast<size_t>(end - j) * sizeof(float));
      const F terms = exp_lanes<W>(rest - m);
      block += lane < static_cast<int32_t>(end - j) ? terms : F{};
    }
    sum += sum_of<W>(block);
  }
  return m + static_cast<float>(std::log(sum));
}

template <int W>
NMT_INLINE void log_softmax_row_lanes(float* x, int64_t n) {
  const float lse = log_sum_exp_lanes<W>(x, n);
  if (lse == -std::numeric_limits<float>::infinity()) return;  // every entry -inf: left as it is
  int64_t i = 0;
  for (; i + W <= n; i += W) store_lanes<W>(x + i, load_lanes<W>(x + i) - lse);
  for (; i < n; ++i) x[i] -= lse;
}

// One function per instruction set from the templates above.
__attribute__((target("avx512f"))) float log_sum_exp_avx512(const float* x, int64_t n) {
  return log_sum_exp_lanes<16>(x, n);
}
__attribute__((target("avx2,fma"))) float log_sum_exp_avx2(const float* x, int64_t n) {
  return log_sum_exp_lanes<8>(x, n);
}
float log_sum_exp_scalar(const float* x, int64_t n) { return log_sum_exp_lanes<1>(x, n); }

__attribute__((target("avx512f"))) void log_softmax_row_avx512(float* x, int64_t n) {
  log_softmax_row_lanes<16>(x, n);
}
__attribute__((target("avx2,fma"))) void log_softmax_row_avx2(float* x, int64_t n) {
  log_softmax_row_lanes<8>(x, n);
}
void log_softmax_row_scalar(float* x, int64_t n) { log_softmax_row_lanes<1>(x, n); }

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
  void (*row)(float*, int64_t) = isa == VectorIsa::kAvx512 ? log_softmax_row_avx512
                                 : isa == VectorIsa::kAvx2  ? log_softmax_row_avx2
                                                            : log_softmax_row_scalar;
  parallel_range(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row(data + r * columns, columns);
  });
}

}  // namespace nmt::kernels
