#include "train/validation.h"

#include <cmath>

#include <torch/torch.h>

#include "train/loss.h"

namespace nmt::train {

ValidationResult run_validation(model::TransformerImpl& model, const std::vector<data::Batch>& batches,
                                const Config& config, const torch::Device& device, Precision precision) {
  torch::NoGradGuard no_grad;
  double nll = 0;
  ValidationResult r;
  for (const auto& b : batches) {
    AutocastScope scope(precision, device);
    auto logits = model.forward(b.src.to(device), b.trg_in.to(device));
    auto parts = label_smoothed_loss(logits, b.gold.to(device), config.model.trg_pad_idx, 0.0);
    nll += parts.nll_sum.item<double>();
    r.tokens += parts.tokens;
  }
  r.loss = r.tokens > 0 ? nll / static_cast<double>(r.tokens) : 0.0;
  r.ppl = std::exp(std::min(r.loss, 50.0));
  return r;
}

}  // namespace nmt::train
