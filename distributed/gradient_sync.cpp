#include "distributed/gradient_sync.h"

#include <torch/torch.h>

#include "distributed/communicator.h"

namespace nmt::distributed {

GradientSync::GradientSync(std::vector<torch::Tensor> parameters, int64_t bucket_bytes)
    : parameters_(std::move(parameters)) {
  int64_t filled = 0;
  std::vector<int64_t> sizes;               // elements per bucket
  std::vector<torch::TensorOptions> kinds;  // dtype and device per bucket
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    if (sizes.empty() || filled + bytes > bucket_bytes || !kinds.back().type_equal(p.options())) {
      sizes.push_back(0);
      kinds.push_back(p.options().requires_grad(false));
      filled = 0;
    }
    slots_.push_back({i, sizes.size() - 1, sizes.back()});
    sizes.back() += p.numel();
    filled += bytes;
  }
  for (size_t b = 0; b < sizes.size(); ++b) flat_.push_back(torch::zeros({sizes[b]}, kinds[b]));
}

void GradientSync::allreduce(Communicator& communicator, std::vector<double>& extras) {
  torch::NoGradGuard no_grad;
  const size_t n_extras = extras.size();
  // Each parameter's "has a gradient" flag rides with the extras.
  auto small = torch::zeros({static_cast<int64_t>(n_extras + parameters_.size())}, torch::kDouble);
  auto* small_data = small.data_ptr<double>();
  for (size_t i = 0; i < n_extras; ++i) small_data[i] = extras[i];
  for (const Slot& s : slots_) {
    const auto& grad = parameters_[s.parameter].grad();
    auto target = flat_[s.bucket].narrow(0, s.offset, parameters_[s.parameter].numel());
    if (grad.defined()) {
      target.copy_(grad.reshape({-1}));
      small_data[n_extras + s.parameter] = 1;
    } else {
      target.zero_();
    }
  }
  std::vector<torch::Tensor> all = flat_;
  all.push_back(small);
  communicator.allreduce_sum(all, "the gradient allreduce");
  for (size_t i = 0; i < n_extras; ++i) extras[i] = small_data[i];
  for (const Slot& s : slots_) {
    auto& p = parameters_[s.parameter];
    if (small_data[n_extras + s.parameter] == 0) continue;
    auto summed = flat_[s.bucket].narrow(0, s.offset, p.numel()).view(p.sizes());
    if (p.grad().defined()) {
      p.mutable_grad().copy_(summed);
    } else {
      p.mutable_grad() = summed.clone();
    }
  }
}

}  // namespace nmt::distributed
