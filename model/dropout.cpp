#include "model/dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "kernels/dropout_mask.h"

namespace nmt::model {
namespace {

uint64_t draw_seed() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get<at::CPUGeneratorImpl>()->random64();
}

}  // namespace

DropoutImpl::DropoutImpl(double p) : p_(p) {
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability must lie in [0, 1), got ", p);
}

torch::Tensor DropoutImpl::forward(const torch::Tensor& x) {
  // [any shape] -> same
  if (!is_training() || p_ == 0.0) return x;
  if (!x.device().is_cpu()) return torch::dropout(x, p_, /*train=*/true);
  return kernels::apply_dropout(x, p_, draw_seed());
}

}  // namespace nmt::model
