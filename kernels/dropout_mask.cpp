#include "kernels/dropout_mask.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstring>

#include "util/random.h"

namespace nmt::kernels {
namespace {

// The draw for element i of a tensor: a 32-bit uniform from a counter-based
// hash of (seed, i), vectorisable (32-bit multiplies only), one per element.
// The element is kept when the draw is at least p * 2^32.
struct Draw {
  uint32_t k1, k2, threshold;

  Draw(uint64_t seed, double p) {
    const uint64_t key = mix64(seed);
    k1 = static_cast<uint32_t>(key);
    k2 = static_cast<uint32_t>(key >> 32);
    threshold = static_cast<uint32_t>(p * 4294967296.0);
  }

  bool kept(uint64_t i) const {
    uint32_t x = (static_cast<uint32_t>(i) * 0x9E3779B9u + k1) ^ k2;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x >= threshold;
  }
};

// The fast paths: float and bfloat16 (autocast's activations), compiled for
// the CPU's widest vectors; one pass, the mask never in memory. The bfloat16
// product is rounded to nearest even, as c10::BFloat16 rounds.
__attribute__((target_clones("avx512f", "avx2", "default")))
void scale_float(const float* in, float* out, int64_t n, uint64_t first, Draw draw, float keep) {
  for (int64_t j = 0; j < n; ++j) out[j] = in[j] * (draw.kept(first + j) ? keep : 0.0f);
}

inline float from_bf16(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  return f != f ? static_cast<uint16_t>(0x7FC0) : static_cast<uint16_t>(rounded);
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void scale_bf16(const uint16_t* in, uint16_t* out, int64_t n, uint64_t first, Draw draw, float keep) {
  for (int64_t j = 0; j < n; ++j) out[j] = to_bf16(from_bf16(in[j]) * (draw.kept(first + j) ? keep : 0.0f));
}

// Any other type: one element at a time.
template <typename scalar_t>
void scale_any(const scalar_t* in, scalar_t* out, int64_t n, uint64_t first, Draw draw, scalar_t keep) {
  const auto zero = static_cast<scalar_t>(0.0);
  for (int64_t j = 0; j < n; ++j) out[j] = in[j] * (draw.kept(first + j) ? keep : zero);
}

constexpr int64_t kGrain = 16384;

void check(const torch::Tensor& x, double p) {
  TORCH_CHECK(x.device().is_cpu(), "dropout masks are made on the CPU, got a tensor on ", x.device());
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability must lie in [0, 1), got ", p);
  TORCH_CHECK(x.numel() <= (int64_t{1} << 32), "dropout draws for at most 2^32 elements a tensor, got ", x.numel());
}

// x * mask in one pass: the same values as x * dropout_mask(x, p, seed).
torch::Tensor masked(const torch::Tensor& x, double p, uint64_t seed) {
  check(x, p);
  const auto in = x.contiguous();  // the mask follows the elements' order in x's shape
  auto out = torch::empty(in.sizes(), in.options().requires_grad(false));
  const Draw draw(seed, p);
  const double keep = 1.0 / (1.0 - p);
  const int64_t n = in.numel();
  if (in.scalar_type() == torch::kFloat) {
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    at::parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
      scale_float(src + b, dst + b, e - b, b, draw, static_cast<float>(keep));
    });
  } else if (in.scalar_type() == torch::kBFloat16) {
    const auto* src = reinterpret_cast<const uint16_t*>(in.data_ptr<at::BFloat16>());
    auto* dst = reinterpret_cast<uint16_t*>(out.data_ptr<at::BFloat16>());
    // The scale as a bfloat16, as a mask of x's dtype holds it.
    const float scale = static_cast<float>(static_cast<at::BFloat16>(keep));
    at::parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) { scale_bf16(src + b, dst + b, e - b, b, draw, scale); });
  } else {
    AT_DISPATCH_FLOATING_TYPES_AND(at::kHalf, in.scalar_type(), "apply_dropout", [&] {
      const scalar_t* src = in.data_ptr<scalar_t>();
      scalar_t* dst = out.data_ptr<scalar_t>();
      at::parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
        scale_any<scalar_t>(src + b, dst + b, e - b, b, draw, static_cast<scalar_t>(keep));
      });
    });
  }
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
  const Draw draw(seed, p);
  const double keep = 1.0 / (1.0 - p);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, mask.scalar_type(), "dropout_mask", [&] {
    scalar_t* out = mask.data_ptr<scalar_t>();
    const auto keep_value = static_cast<scalar_t>(keep), drop_value = static_cast<scalar_t>(0.0);
    at::parallel_for(0, mask.numel(), kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = draw.kept(static_cast<uint64_t>(i)) ? keep_value : drop_value;
    });
  });
  return mask;
}

torch::Tensor apply_dropout(const torch::Tensor& x, double p, uint64_t seed) {
  return SeededDropout::apply(x, p, static_cast<int64_t>(seed));
}

}  // namespace nmt::kernels
