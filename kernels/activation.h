// The feed-forward's activation: the reference's ReLU, or the one a model
// imported from another engine was trained with (Marian's Swish, GELU in its
// exact, tanh and sigmoid forms). One function for the module path and the
// fused decoder step, so that both give the same bits.
#pragma once

#include <cstdint>
#include <string>

#include <torch/types.h>

namespace nmt::kernels {

enum class Activation {
  relu,          // max(0, x)
  gelu,          // x * Phi(x), with erf
  gelu_tanh,     // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  gelu_sigmoid,  // x * sigmoid(1.702 x)
  swish,         // x * sigmoid(x) (SiLU)
};

// "relu", "gelu", "gelu_tanh", "gelu_sigmoid", "swish": the names model.activation takes.
std::string activation_name(Activation a);
// The activation of that name; a UsageError lists the names for any other.
Activation activation_from_name(const std::string& name);

// f(x) by tensor operators: differentiable, any device (training).
torch::Tensor activate(const torch::Tensor& x, Activation a);
// f applied in place to n contiguous floats, one element at a time in
// float: an element's bits depend on its value alone, not on where it lies
// or how many rows came with it (ATen's vectorized kernels compute a
// tensor's tail, and each thread's, by another formula). Inference on the
// CPU, in the module and in the fused decoder step alike.
void activate_in_place(float* data, int64_t n, Activation a);
// x activated for inference: in place where x is a CPU float tensor that
// holds its own contiguous data (a product's fresh output), else activate().
torch::Tensor activate_for_inference(torch::Tensor x, Activation a);

}  // namespace nmt::kernels
