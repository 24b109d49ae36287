#include "model/layer_norm.h"

#include <torch/torch.h>

namespace nmt::model {

LayerNormImpl::LayerNormImpl(int64_t d_model, double eps) : eps_(eps) {
  gamma = register_parameter("gamma", torch::ones({d_model}));
  beta = register_parameter("beta", torch::zeros({d_model}));
}

torch::Tensor LayerNormImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.size(-1) == gamma.size(0), "LayerNorm expects last dim ", gamma.size(0), ", got ", x.sizes());
  auto mean = x.mean(-1, /*keepdim=*/true);
  auto var = x.var(-1, /*unbiased=*/false, /*keepdim=*/true);
  auto out = (x - mean) / torch::sqrt(var + eps_);
  return gamma * out + beta;
}

}  // namespace nmt::model
