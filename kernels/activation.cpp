#include "kernels/activation.h"

#include <cmath>

#include <torch/torch.h>

#include "util/error.h"

namespace nmt::kernels {

std::string activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::gelu_sigmoid: return "gelu_sigmoid";
    case Activation::swish: return "swish";
  }
  return "relu";
}

Activation activation_from_name(const std::string& name) {
  for (auto a : {Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::gelu_sigmoid,
                 Activation::swish}) {
    if (activation_name(a) == name) return a;
  }
  throw UsageError("model.activation must be \"relu\", \"gelu\", \"gelu_tanh\", \"gelu_sigmoid\" or \"swish\" (got \"" +
                   name + "\").");
}

torch::Tensor activate(const torch::Tensor& x, Activation a) {
  switch (a) {
    case Activation::relu: return torch::relu(x);
    case Activation::gelu: return torch::gelu(x);
    case Activation::gelu_tanh: return torch::gelu(x, "tanh");
    case Activation::gelu_sigmoid: return x * torch::sigmoid(x * 1.702);
    case Activation::swish: return torch::silu(x);
  }
  return x;
}

void activate_in_place(float* data, int64_t n, Activation a) {
  constexpr float kHalf = 0.5f, kRsqrt2 = 0.70710678118654752f, kTanhScale = 0.79788456080286536f;
  switch (a) {
    case Activation::relu:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] > 0.0f ? data[i] : 0.0f;
      return;
    case Activation::gelu:
      for (int64_t i = 0; i < n; ++i) data[i] = kHalf * data[i] * (1.0f + std::erf(data[i] * kRsqrt2));
      return;
    case Activation::gelu_tanh:
      for (int64_t i = 0; i < n; ++i) {
        const float x = data[i];
        data[i] = kHalf * x * (1.0f + std::tanh(kTanhScale * (x + 0.044715f * x * x * x)));
      }
      return;
    case Activation::gelu_sigmoid:  // exp overflowing to inf gives -0: the limit
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] / (1.0f + std::exp(-1.702f * data[i]));
      return;
    case Activation::swish:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] / (1.0f + std::exp(-data[i]));
      return;
  }
}

torch::Tensor activate_for_inference(torch::Tensor x, Activation a) {
  const bool own_rows = x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.is_contiguous() &&
                        x.storage_offset() == 0 && !x.requires_grad();
  if (!own_rows) return activate(x, a);
  activate_in_place(x.data_ptr<float>(), x.numel(), a);
  return x;
}

}  // namespace nmt::kernels
