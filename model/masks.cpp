#include "model/masks.h"

#include <torch/torch.h>

namespace nmt::model {

torch::Tensor make_src_mask(const torch::Tensor& src, int64_t pad_idx) {
  TORCH_CHECK(src.dim() == 2, "src must be [batch, len], got ", src.sizes());
  return src.ne(pad_idx).unsqueeze(1).unsqueeze(2);
}

torch::Tensor causal_mask(int64_t len, const torch::Device& device) {
  return torch::ones({len, len}, torch::TensorOptions().dtype(torch::kBool).device(device)).tril();
}

torch::Tensor make_trg_mask(const torch::Tensor& trg, int64_t pad_idx) {
  TORCH_CHECK(trg.dim() == 2, "trg must be [batch, len], got ", trg.sizes());
  auto pad_mask = trg.ne(pad_idx).unsqueeze(1).unsqueeze(3);
  return pad_mask.logical_and(causal_mask(trg.size(1), trg.device()));
}

}  // namespace nmt::model
