#include "kernels/dropout_mask.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "util/random.h"

namespace nmt::kernels {
namespace {

// Calls keep(i, kept) for every element i < n, in parallel: each hash of
// (seed, i / 2) gives two 32-bit uniforms, and an element is kept when its
// uniform is at least p * 2^32.
template <typename F>
void for_each_draw(int64_t n, double p, uint64_t seed, const F& keep) {
  const auto threshold = static_cast<uint64_t>(p * 4294967296.0);
  const uint64_t key = mix64(seed);
  at::parallel_for(0, (n + 1) / 2, 16384, [&](int64_t begin, int64_t end) {
    for (int64_t pair = begin; pair < end; ++pair) {
      const uint64_t bits = mix64(key + static_cast<uint64_t>(pair) * kGoldenGamma);
      const int64_t i = 2 * pair;
      keep(i, (bits & 0xffffffffULL) >= threshold);
      if (i + 1 < n) keep(i + 1, (bits >> 32) >= threshold);
    }
  });
}

template <typename scalar_t>
void fill_mask(scalar_t* out, int64_t n, double p, uint64_t seed) {
  const auto keep_value = static_cast<scalar_t>(1.0 / (1.0 - p)), drop_value = static_cast<scalar_t>(0.0);
  for_each_draw(n, p, seed, [&](int64_t i, bool kept) { out[i] = kept ? keep_value : drop_value; });
}

// out = in * mask in one pass, without the mask in memory; the same values
// as in * dropout_mask(in, p, seed).
template <typename scalar_t>
void scale_by_mask(const scalar_t* in, scalar_t* out, int64_t n, double p, uint64_t seed) {
  const auto keep_value = static_cast<scalar_t>(1.0 / (1.0 - p)), drop_value = static_cast<scalar_t>(0.0);
  for_each_draw(n, p, seed, [&](int64_t i, bool kept) { out[i] = in[i] * (kept ? keep_value : drop_value); });
}

void check(const torch::Tensor& x, double p) {
  TORCH_CHECK(x.device().is_cpu(), "dropout masks are made on the CPU, got a tensor on ", x.device());
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability must lie in [0, 1), got ", p);
}

torch::Tensor masked(const torch::Tensor& x, double p, uint64_t seed) {
  check(x, p);
  const auto in = x.contiguous();  // the mask follows the elements' order in x's shape
  auto out = torch::empty(in.sizes(), in.options().requires_grad(false));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, in.scalar_type(), "apply_dropout", [&] {
    scale_by_mask<scalar_t>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), in.numel(), p, seed);
  });
  return out;
}

// x * mask, with the mask drawn again from its seed in the backward pass
// rather than held from forward to backward.
class SeededDropout : public torch::autograd::Function<SeededDropout> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, double p, int64_t seed) {
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    return masked(x, p, static_cast<uint64_t>(seed));
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const double p = ctx->saved_data["p"].toDouble();
    const auto seed = static_cast<uint64_t>(ctx->saved_data["seed"].toInt());
    // The gradient has x's shape; the mask depends on shape, dtype and seed only.
    return {masked(grads[0], p, seed), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor dropout_mask(const torch::Tensor& like, double p, uint64_t seed) {
  check(like, p);
  auto mask = torch::empty(like.sizes(), like.options().requires_grad(false));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, mask.scalar_type(), "dropout_mask",
                                  [&] { fill_mask<scalar_t>(mask.data_ptr<scalar_t>(), mask.numel(), p, seed); });
  return mask;
}

torch::Tensor apply_dropout(const torch::Tensor& x, double p, uint64_t seed) {
  return SeededDropout::apply(x, p, static_cast<int64_t>(seed));
}

}  // namespace nmt::kernels
