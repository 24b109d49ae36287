#include "model/scale_dot_product_attention.h"

#include <cmath>

#include <torch/torch.h>

#include "kernels/batched_matmul.h"

namespace nmt::model {

ScaleDotProductAttentionImpl::ScaleDotProductAttentionImpl(double p) {
  dropout = register_module("dropout", Dropout(p));
}

std::pair<torch::Tensor, torch::Tensor> ScaleDotProductAttentionImpl::forward(const torch::Tensor& q,
                                                                             const torch::Tensor& k,
                                                                             const torch::Tensor& v,
                                                                             const torch::Tensor& mask) {
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "attention expects [batch, head, len, d_head] inputs");
  TORCH_CHECK(q.size(-1) == k.size(-1) && k.size(2) == v.size(2), "attention shape mismatch: q ", q.sizes(),
              " k ", k.sizes(), " v ", v.sizes());
  const double d_head = static_cast<double>(k.size(3));
  auto score = kernels::batched_matmul(q, k.transpose(2, 3)) / std::sqrt(d_head);
  if (mask.defined()) score = score.masked_fill(mask == 0, kMaskedScore);
  score = torch::softmax(score, -1);
  return {kernels::batched_matmul(dropout(score), v), score};
}

}  // namespace nmt::model
