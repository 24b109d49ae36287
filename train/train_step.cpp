#include "train/train_step.h"

#include <torch/torch.h>

#include "train/loss.h"

namespace nmt::train {

BatchLoss forward_backward(model::TransformerImpl& model, const data::Batch& batch, double denominator,
                           const StepSettings& s) {
  LossParts parts;
  {
    PrecisionScope precision_scope(s.precision, s.device);
    auto gold = batch.gold.to(s.device).reshape({-1});
    auto hidden = model.forward_hidden(batch.src.to(s.device), batch.tgt_in.to(s.device));
    // Only positions with a real target reach the output projection and the loss.
    auto rows = gold.ne(s.pad_id).nonzero().squeeze(1);
    auto logits = model.decoder->linear(hidden.reshape({-1, hidden.size(-1)}).index_select(0, rows));
    parts = label_smoothed_loss(logits, gold.index_select(0, rows), s.pad_id, s.label_smoothing);
  }
  (parts.smoothed_sum / denominator).backward();
  return {parts.smoothed_sum.detach(), parts.nll_sum, parts.tokens};
}

}  // namespace nmt::train
