#include "kernels/top_k.h"

#include <algorithm>
#include <limits>

#include <immintrin.h>

#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace nmt::kernels {
namespace {

// The k best so far, best first; ties keep the earlier (lower) index, which
// the scan meets first.
class BestList {
 public:
  BestList(float* values, int64_t* indices, int64_t k) : values_(values), indices_(indices), k_(k) {
    std::fill(values_, values_ + k_, -std::numeric_limits<float>::infinity());
    std::fill(indices_, indices_ + k_, 0);
  }

  float threshold() const { return values_[k_ - 1]; }

  void offer(float v, int64_t index) {
    if (!(v > values_[k_ - 1])) return;
    int64_t j = k_ - 1;
    for (; j > 0 && values_[j - 1] < v; --j) {
      values_[j] = values_[j - 1];
      indices_[j] = indices_[j - 1];
    }
    values_[j] = v;
    indices_[j] = index;
  }

 private:
  float* values_;
  int64_t* indices_;
  int64_t k_;
};

// The scan is written twice in intrinsics, not once as a template over
// GCC's vector types (as log_softmax.cpp is): there the comparison's result
// cannot stay a bit mask, and every 16 values pay a horizontal reduction
// (1.2-1.6x slower over a beam-4 step's scores, measured).
__attribute__((target("avx512f"))) void scan_avx512(const float* x, int64_t n, float offset, int64_t base,
                                                    BestList& best) {
  const __m512 voff = _mm512_set1_ps(offset);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_add_ps(_mm512_loadu_ps(x + i), voff);
    __mmask16 pass = _mm512_cmp_ps_mask(v, _mm512_set1_ps(best.threshold()), _CMP_GT_OQ);
    for (; pass != 0; pass &= static_cast<__mmask16>(pass - 1)) {
      const int lane = __builtin_ctz(pass);
      best.offer(x[i + lane] + offset, base + i + lane);
    }
  }
  for (; i < n; ++i) best.offer(x[i] + offset, base + i);
}

__attribute__((target("avx2"))) void scan_avx2(const float* x, int64_t n, float offset, int64_t base,
                                               BestList& best) {
  const __m256 voff = _mm256_set1_ps(offset);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_add_ps(_mm256_loadu_ps(x + i), voff);
    int pass = _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_set1_ps(best.threshold()), _CMP_GT_OQ));
    for (; pass != 0; pass &= pass - 1) {
      const int lane = __builtin_ctz(static_cast<unsigned>(pass));
      best.offer(x[i + lane] + offset, base + i + lane);
    }
  }
  for (; i < n; ++i) best.offer(x[i] + offset, base + i);
}

void scan_scalar(const float* x, int64_t n, float offset, int64_t base, BestList& best) {
  for (int64_t i = 0; i < n; ++i) best.offer(x[i] + offset, base + i);
}

using Scan = void (*)(const float*, int64_t, float, int64_t, BestList&);

Scan scan_for(VectorIsa isa) {
  TORCH_CHECK(cpu_supports(isa), "this CPU does not run ", isa_name(isa));
  return isa == VectorIsa::kAvx512 ? scan_avx512 : isa == VectorIsa::kAvx2 ? scan_avx2 : scan_scalar;
}

}  // namespace

TopK top_k_per_group(const torch::Tensor& scores, const torch::Tensor& offsets, int64_t width, int64_t k,
                     VectorIsa isa) {
  TORCH_CHECK(scores.dim() == 2 && scores.scalar_type() == torch::kFloat && scores.is_contiguous() &&
                  scores.device().is_cpu(),
              "top_k_per_group takes contiguous [rows, columns] float scores on the CPU, got ", scores.sizes(), " ",
              scores.scalar_type());
  const int64_t rows = scores.size(0), columns = scores.size(1);
  TORCH_CHECK(width >= 1 && rows % width == 0, "top_k_per_group: ", rows, " rows do not split into groups of ",
              width);
  TORCH_CHECK(k >= 1 && k <= width * columns, "top_k_per_group: k = ", k, " outside 1..", width * columns);
  torch::Tensor offset_values;
  if (offsets.defined()) {
    offset_values = offsets.device().is_cpu() && offsets.scalar_type() == torch::kFloat && offsets.is_contiguous()
                        ? offsets
                        : offsets.to(torch::kCPU, torch::kFloat).contiguous();
    TORCH_CHECK(offset_values.numel() == rows, "top_k_per_group: ", offset_values.numel(), " offsets for ", rows,
                " rows");
  }
  const int64_t groups = rows / width;
  TopK out{torch::empty({groups, k}, torch::kFloat), torch::empty({groups, k}, torch::kLong)};
  const float* x = scores.data_ptr<float>();
  const float* off = offset_values.defined() ? offset_values.data_ptr<float>() : nullptr;
  float* values = out.values.data_ptr<float>();
  int64_t* indices = out.indices.data_ptr<int64_t>();
  const Scan scan = scan_for(isa);
  // A thread takes at least ~32k values: fewer do not repay waking it.
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, width * columns));
  at::parallel_for(0, groups, grain, [&](int64_t begin, int64_t end) {
    for (int64_t g = begin; g < end; ++g) {
      BestList best(values + g * k, indices + g * k, k);
      for (int64_t w = 0; w < width; ++w) {
        const int64_t r = g * width + w;
        scan(x + r * columns, columns, off ? off[r] : 0.0f, w * columns, best);
      }
    }
  });
  return out;
}

}  // namespace nmt::kernels
