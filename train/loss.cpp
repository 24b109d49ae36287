#include "train/loss.h"

#include <torch/torch.h>

namespace nmt::train {

LossParts label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& gold, int64_t pad_id,
                              double smoothing) {
  TORCH_CHECK(logits.dim() == 3 && gold.dim() == 2 && logits.size(0) == gold.size(0) &&
                  logits.size(1) == gold.size(1),
              "loss expects logits [B,T,V] and gold [B,T], got ", logits.sizes(), " and ", gold.sizes());
  const int64_t vocab = logits.size(-1);
  auto lprobs = torch::log_softmax(logits.to(torch::kFloat), -1).reshape({-1, vocab});
  auto target = gold.reshape({-1});
  auto keep = target.ne(pad_id);
  auto nll = -lprobs.gather(1, target.unsqueeze(1)).squeeze(1);
  LossParts out;
  out.tokens = keep.sum().item<int64_t>();
  out.nll_sum = nll.masked_select(keep).sum().detach();
  if (smoothing <= 0.0) {
    out.smoothed_sum = nll.masked_select(keep).sum();
    return out;
  }
  // Uniform part over every class but pad: -(sum over c != pad of log p_c) / (V - 1).
  auto uniform = -(lprobs.sum(1) - lprobs.select(1, pad_id)) / static_cast<double>(vocab - 1);
  auto per_token = (1.0 - smoothing) * nll + smoothing * uniform;
  out.smoothed_sum = per_token.masked_select(keep).sum();
  return out;
}

}  // namespace nmt::train
