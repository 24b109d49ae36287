#include "kernels/batched_matmul.h"

#include <limits>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "util/runtime_symbol.h"
#include "util/precision.h"

namespace nmt::kernels {
namespace {

// The CBLAS interface (cblas.h's values), looked up at run time in whatever
// libblas.so.3 LibTorch loaded (OpenBLAS here).
enum CblasOrder { kRowMajor = 101 };
enum CblasTranspose { kNoTrans = 111, kTrans = 112 };
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);

SgemmFn cblas_sgemm() {
  static const auto fn = runtime_symbol<SgemmFn>("cblas_sgemm");
  return fn;
}

constexpr int64_t kBlasThreadsItself = int64_t{1} << 18;

// One operand's matrices: row-major as they lie (NoTrans) or as the transpose
// of row-major ones, with the leading dimension of either.
struct Operand {
  torch::Tensor t;
  int trans = kNoTrans;
  int64_t ld = 0;
};

Operand operand(const torch::Tensor& x) {
  const int64_t rows = x.size(2), cols = x.size(3);
  constexpr int64_t kMaxLd = std::numeric_limits<int>::max();  // cblas takes int
  if (x.stride(3) == 1 && x.stride(2) >= std::max<int64_t>(cols, 1) && x.stride(2) <= kMaxLd) {
    return {x, kNoTrans, x.stride(2)};
  }
  if (x.stride(2) == 1 && x.stride(3) >= std::max<int64_t>(rows, 1) && x.stride(3) <= kMaxLd) {
    return {x, kTrans, x.stride(3)};
  }
  auto c = x.contiguous();
  return {c, kNoTrans, std::max<int64_t>(cols, 1)};
}

torch::Tensor sgemm_batched(const torch::Tensor& a_in, const torch::Tensor& b_in) {
  const Operand a = operand(a_in), b = operand(b_in);
  const int64_t batch = a_in.size(0), heads = a_in.size(1);
  const int64_t m = a_in.size(2), k = a_in.size(3), n = b_in.size(3);
  auto out = torch::empty({batch, heads, m, n}, a_in.options());
  const float* pa = a.t.data_ptr<float>();
  const float* pb = b.t.data_ptr<float>();
  float* pc = out.data_ptr<float>();
  const auto sgemm = cblas_sgemm();
  auto products = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t bi = i / heads, hi = i % heads;
      sgemm(kRowMajor, a.trans, b.trans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
            pa + bi * a.t.stride(0) + hi * a.t.stride(1), static_cast<int>(a.ld),
            pb + bi * b.t.stride(0) + hi * b.t.stride(1), static_cast<int>(b.ld), 0.0f, pc + i * m * n,
            static_cast<int>(n));
    }
  };
  // OpenBLAS runs products below ~2^18 multiply-adds on the calling thread:
  // those are spread over ATen's pool. Larger ones it threads itself, so
  // they run one after another rather than nesting BLAS threads in OpenMP's.
  const int64_t work = m * n * k;
  if (work >= kBlasThreadsItself) {
    products(0, batch * heads);
  } else {
    // Enough matrices per task that a task outweighs waking a thread.
    at::parallel_for(0, batch * heads, std::max<int64_t>(1, 32768 / std::max<int64_t>(work, 1)), products);
  }
  return out;
}

class BatchedMatmul : public torch::autograd::Function<BatchedMatmul> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b) {
    ctx->save_for_backward({a, b});
    return sgemm_batched(a, b);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& g = grads[0];
    return {sgemm_batched(g, saved[1].transpose(2, 3)), sgemm_batched(saved[0].transpose(2, 3), g)};
  }
};

bool use_sgemm(const torch::Tensor& a, const torch::Tensor& b) {
  return batched_matmul_uses_blas() && a.device().is_cpu() && b.device().is_cpu() && a.scalar_type() == torch::kFloat &&
         b.scalar_type() == torch::kFloat && !autocast_enabled_on_cpu() && a.size(2) * a.size(3) * b.size(3) > 0 &&
         a.size(0) == b.size(0) && a.size(1) == b.size(1) &&
         std::max({a.size(2), a.size(3), b.size(3)}) < (int64_t{1} << 30);
}

}  // namespace

bool batched_matmul_uses_blas() { return cblas_sgemm() != nullptr; }

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  // [B, H, m, k] @ [B, H, k, n] -> [B, H, m, n]
  TORCH_CHECK(a.dim() == 4 && b.dim() == 4 && a.size(3) == b.size(2),
              "batched_matmul expects [B,H,m,k] @ [B,H,k,n], got ", a.sizes(), " and ", b.sizes());
  if (!use_sgemm(a, b)) return torch::matmul(a, b);
  if (torch::GradMode::is_enabled() && (a.requires_grad() || b.requires_grad())) return BatchedMatmul::apply(a, b);
  return sgemm_batched(a, b);
}

}  // namespace nmt::kernels
