#include "model/dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace nmt::model {
namespace {

// SplitMix64's finalizer: a bijective 64-bit mix with good avalanche.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t draw_seed() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get<at::CPUGeneratorImpl>()->random64();
}

template <typename scalar_t>
void fill_mask(scalar_t* out, int64_t n, double p, uint64_t seed) {
  // Each hash gives two 32-bit uniforms; an element is kept when its uniform
  // is at least p * 2^32.
  const auto threshold = static_cast<uint64_t>(p * 4294967296.0);
  const auto keep_value = static_cast<scalar_t>(1.0 / (1.0 - p));
  const auto drop_value = static_cast<scalar_t>(0.0);
  const uint64_t key = mix64(seed);
  at::parallel_for(0, (n + 1) / 2, 16384, [&](int64_t begin, int64_t end) {
    for (int64_t pair = begin; pair < end; ++pair) {
      const uint64_t bits = mix64(key + static_cast<uint64_t>(pair) * 0x9e3779b97f4a7c15ULL);
      const int64_t i = 2 * pair;
      out[i] = (bits & 0xffffffffULL) >= threshold ? keep_value : drop_value;
      if (i + 1 < n) out[i + 1] = (bits >> 32) >= threshold ? keep_value : drop_value;
    }
  });
}

}  // namespace

torch::Tensor dropout_mask(const torch::Tensor& like, double p, uint64_t seed) {
  TORCH_CHECK(like.device().is_cpu(), "dropout_mask makes CPU masks");
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability must lie in [0, 1), got ", p);
  auto mask = torch::empty(like.sizes(), like.options().requires_grad(false));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, mask.scalar_type(), "dropout_mask", [&] {
    fill_mask<scalar_t>(mask.data_ptr<scalar_t>(), mask.numel(), p, seed);
  });
  return mask;
}

DropoutImpl::DropoutImpl(double p) : p_(p) {
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability must lie in [0, 1), got ", p);
}

torch::Tensor DropoutImpl::forward(const torch::Tensor& x) {
  // [any shape] -> same
  if (!is_training() || p_ == 0.0) return x;
  if (!x.device().is_cpu()) return torch::dropout(x, p_, /*train=*/true);
  return x * dropout_mask(x, p_, draw_seed());
}

}  // namespace nmt::model
