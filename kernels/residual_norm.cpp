#include "kernels/residual_norm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <torch/torch.h>

#include "kernels/step_team.h"
#include "kernels/vector_lanes.h"

namespace nmt::kernels {
namespace {

// Rows [begin, end) of a [rows, d] pair into out [rows, d].
template <class A>
NMT_INLINE void norm_rows(const A* a, const float* b, const float* gamma, const float* beta, float eps, int64_t d,
                          int64_t begin, int64_t end, float* out) {
  const int64_t vec_end = d - d % kLanes;
  for (int64_t r = begin; r < end; ++r) {
    const A* ar = a + r * d;
    const float* br = b ? b + r * d : nullptr;
    float* o = out + r * d;
    Lanes acc = {};
    for (int64_t i = 0; i < vec_end; i += kLanes) {
      const Lanes s = br ? load(ar + i) + load(br + i) : load(ar + i);
      std::memcpy(o + i, &s, sizeof s);
      acc += s;
    }
    float sum = lanes_sum(acc);
    for (int64_t i = vec_end; i < d; ++i) sum += (o[i] = static_cast<float>(ar[i]) + (br ? br[i] : 0.0f));
    const float mean = sum / static_cast<float>(d);
    Lanes sq = {};
    for (int64_t i = 0; i < vec_end; i += kLanes) {
      const Lanes c = load(o + i) - mean;
      sq += c * c;
    }
    float var = lanes_sum(sq);
    for (int64_t i = vec_end; i < d; ++i) var += (o[i] - mean) * (o[i] - mean);
    const float rstd = 1.0f / std::sqrt(var / static_cast<float>(d) + eps);
    for (int64_t i = 0; i < vec_end; i += kLanes) {
      const Lanes y = (load(o + i) - mean) * rstd * load(gamma + i) + load(beta + i);
      std::memcpy(o + i, &y, sizeof y);
    }
    for (int64_t i = vec_end; i < d; ++i) o[i] = (o[i] - mean) * rstd * gamma[i] + beta[i];
  }
}

NMT_INLINE void norm_rows_fp32_body(const float* a, const float* b, const float* gamma, const float* beta, float eps,
                                    int64_t d, int64_t begin, int64_t end, float* out) {
  norm_rows(a, b, gamma, beta, eps, d, begin, end, out);
}
NMT_VECTOR_DISPATCH(void, norm_rows_fp32,
                    (const float* a, const float* b, const float* gamma, const float* beta, float eps, int64_t d,
                     int64_t begin, int64_t end, float* out),
                    (a, b, gamma, beta, eps, d, begin, end, out))

NMT_INLINE void norm_rows_bf16_body(const c10::BFloat16* a, const float* b, const float* gamma, const float* beta,
                                    float eps, int64_t d, int64_t begin, int64_t end, float* out) {
  norm_rows(a, b, gamma, beta, eps, d, begin, end, out);
}
NMT_VECTOR_DISPATCH(void, norm_rows_bf16,
                    (const c10::BFloat16* a, const float* b, const float* gamma, const float* beta, float eps,
                     int64_t d, int64_t begin, int64_t end, float* out),
                    (a, b, gamma, beta, eps, d, begin, end, out))

template <class Y>
NMT_INLINE void add_values(const float* x, const Y* y, int64_t begin, int64_t end, float* out) {
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    const Lanes s = load(x + i) + load(y + i);
    std::memcpy(out + i, &s, sizeof s);
  }
  for (; i < end; ++i) out[i] = x[i] + static_cast<float>(y[i]);
}

NMT_INLINE void add_values_fp32_body(const float* x, const float* y, int64_t begin, int64_t end, float* out) {
  add_values(x, y, begin, end, out);
}
NMT_VECTOR_DISPATCH(void, add_values_fp32, (const float* x, const float* y, int64_t begin, int64_t end, float* out),
                    (x, y, begin, end, out))

NMT_INLINE void add_values_bf16_body(const float* x, const c10::BFloat16* y, int64_t begin, int64_t end, float* out) {
  add_values(x, y, begin, end, out);
}
NMT_VECTOR_DISPATCH(void, add_values_bf16,
                    (const float* x, const c10::BFloat16* y, int64_t begin, int64_t end, float* out),
                    (x, y, begin, end, out))

}  // namespace

torch::Tensor add_residual(const torch::Tensor& x, const torch::Tensor& y) {
  // [..., d]
  const bool needs_grad = torch::GradMode::is_enabled() && (x.requires_grad() || y.requires_grad());
  if (needs_grad || !x.device().is_cpu() || !y.device().is_cpu() || x.scalar_type() != torch::kFloat ||
      (y.scalar_type() != torch::kFloat && y.scalar_type() != torch::kBFloat16) || x.sizes() != y.sizes() ||
      !x.is_contiguous() || !y.is_contiguous()) {
    return x + y;
  }
  auto out = torch::empty(x.sizes(), x.options());
  const float* xp = x.data_ptr<float>();
  float* op = out.data_ptr<float>();
  parallel_range(0, x.numel(), 16384, [&](int64_t begin, int64_t end) {
    if (y.scalar_type() == torch::kFloat) {
      add_values_fp32(xp, y.data_ptr<float>(), begin, end, op);
    } else {
      add_values_bf16(xp, y.data_ptr<c10::BFloat16>(), begin, end, op);
    }
  });
  return out;
}

bool layer_norm_of_sum_supported(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& gamma) {
  const bool needs_grad = torch::GradMode::is_enabled() &&
                          (a.requires_grad() || (b.defined() && b.requires_grad()) || gamma.requires_grad());
  const bool b_fits =
      !b.defined() || (b.device().is_cpu() && b.scalar_type() == torch::kFloat && a.sizes() == b.sizes());
  return !needs_grad && b_fits && a.device().is_cpu() && gamma.device().is_cpu() &&
         (a.scalar_type() == torch::kFloat || a.scalar_type() == torch::kBFloat16) &&
         gamma.scalar_type() == torch::kFloat && a.dim() >= 1 && a.size(-1) == gamma.numel();
}

torch::Tensor layer_norm_of_sum(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& gamma,
                                const torch::Tensor& beta, double eps) {
  // [..., d] -> [..., d]
  TORCH_CHECK(
      layer_norm_of_sum_supported(a, b, gamma) && beta.sizes() == gamma.sizes() && beta.scalar_type() == torch::kFloat,
      "layer_norm_of_sum: unsupported operands ", a.sizes(), " ", a.scalar_type(), " + ", b.sizes(), " ",
      b.scalar_type(), " with parameters ", gamma.sizes());
  const int64_t d = a.size(-1), rows = d == 0 ? 0 : a.numel() / d;
  const auto ac = a.contiguous(), gc = gamma.contiguous(), betac = beta.contiguous();
  const auto bc = b.defined() ? b.contiguous() : b;
  const float* bp = bc.defined() ? bc.data_ptr<float>() : nullptr;
  auto out = torch::empty(a.sizes(), gamma.options());
  if (rows == 0) return out;
  const float e = static_cast<float>(eps);
  const int64_t grain = std::max<int64_t>(1, 16384 / d);  // a thread takes ~16k values or more
  parallel_range(0, rows, grain, [&](int64_t begin, int64_t end) {
    if (ac.scalar_type() == torch::kFloat) {
      norm_rows_fp32(ac.data_ptr<float>(), bp, gc.data_ptr<float>(), betac.data_ptr<float>(), e, d, begin, end,
                     out.data_ptr<float>());
    } else {
      norm_rows_bf16(ac.data_ptr<c10::BFloat16>(), bp, gc.data_ptr<float>(), betac.data_ptr<float>(), e, d, begin, end,
                     out.data_ptr<float>());
    }
  });
  return out;
}

void layer_norm_rows(const float* a, const float* b, int64_t rows, int64_t d, const float* gamma, const float* beta,
                     float eps, float* out) {
  norm_rows_fp32(a, b, gamma, beta, eps, d, 0, rows, out);
}

void add_rows(const float* x, const float* y, int64_t n, float* out) { add_values_fp32(x, y, 0, n, out); }

}  // namespace nmt::kernels
