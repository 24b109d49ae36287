#include "train/loss.h"

#include <torch/torch.h>

namespace nmt::train {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr int64_t kRowsPerBlock = 256;  // a block's fp32 rows stay in cache (256 x 8000 x 4 B = 8 MB)

struct Targets {
  torch::Tensor gold;  // int64 [N]
  torch::Tensor keep;  // float [N]: 1 for real targets, 0 for pad
  int64_t pad = 1;
  double smoothing = 0;
};

// Forward over a block of rows x [n, V] (fp32): per-row log-sum-exp, smoothed
// loss and nll.
void block_forward(const torch::Tensor& x, const Targets& t, int64_t r0, torch::Tensor& lse_out,
                   torch::Tensor& smoothed_out, torch::Tensor& nll_out) {
  const int64_t n = x.size(0), vocab = x.size(1);
  auto gold = t.gold.narrow(0, r0, n);
  auto keep = t.keep.narrow(0, r0, n);
  auto lse = torch::logsumexp(x, 1);
  auto nll = (lse - x.gather(1, gold.unsqueeze(1)).squeeze(1)) * keep;
  lse_out.narrow(0, r0, n).copy_(lse);
  nll_out.narrow(0, r0, n).copy_(nll);
  if (t.smoothing <= 0.0) {  // also keeps a -inf logit from turning 0 * inf into NaN
    smoothed_out.narrow(0, r0, n).copy_(nll);
    return;
  }
  // mean over c != pad of -log p_c = lse - (sum_c x_c - x_pad) / (V - 1)
  auto uniform = lse - (x.sum(1) - x.select(1, t.pad)) / static_cast<double>(vocab - 1);
  smoothed_out.narrow(0, r0, n).copy_((1.0 - t.smoothing) * nll + t.smoothing * uniform * keep);
}

class SmoothedCrossEntropy : public torch::autograd::Function<SmoothedCrossEntropy> {
 public:
  // logits [N, V]; returns (smoothed loss sum, nll sum), both fp32 scalars.
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& logits, const torch::Tensor& gold,
                               int64_t pad, double smoothing) {
    Targets t{gold, gold.ne(pad).to(torch::kFloat), pad, smoothing};
    const int64_t rows = logits.size(0);
    auto f32 = logits.options().dtype(torch::kFloat);
    auto lse = torch::empty({rows}, f32), smoothed = torch::empty({rows}, f32), nll = torch::empty({rows}, f32);
    for (int64_t r0 = 0; r0 < rows; r0 += kRowsPerBlock) {
      const int64_t n = std::min(kRowsPerBlock, rows - r0);
      block_forward(logits.narrow(0, r0, n).to(torch::kFloat), t, r0, lse, smoothed, nll);
    }
    ctx->save_for_backward({logits, gold, t.keep, lse});
    ctx->saved_data["pad"] = pad;
    ctx->saved_data["smoothing"] = smoothing;
    auto nll_sum = nll.sum();
    ctx->mark_non_differentiable({nll_sum});
    return {smoothed.sum(), nll_sum};
  }

  // d loss / d x_c = keep * (p_c - (1 - eps) [c = gold] - eps / (V - 1) [c != pad])
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &logits = saved[0], &gold = saved[1], &keep = saved[2], &lse = saved[3];
    const int64_t pad = ctx->saved_data["pad"].toInt();
    const double eps = ctx->saved_data["smoothing"].toDouble();
    const int64_t rows = logits.size(0), vocab = logits.size(1);
    auto row_scale = keep * grads[0].to(torch::kFloat);  // [N]
    auto grad = torch::empty_like(logits);
    for (int64_t r0 = 0; r0 < rows; r0 += kRowsPerBlock) {
      const int64_t n = std::min(kRowsPerBlock, rows - r0);
      auto scale = row_scale.narrow(0, r0, n).unsqueeze(1);
      auto g = (logits.narrow(0, r0, n).to(torch::kFloat) - lse.narrow(0, r0, n).unsqueeze(1)).exp_();
      if (eps > 0) {
        g.sub_(eps / static_cast<double>(vocab - 1));
        g.select(1, pad).add_(eps / static_cast<double>(vocab - 1));
      }
      g.scatter_add_(1, gold.narrow(0, r0, n).unsqueeze(1), torch::full({n, 1}, -(1.0 - eps), g.options()));
      g.mul_(scale);
      grad.narrow(0, r0, n).copy_(g);
    }
    return {grad, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

LossParts label_smoothed_loss(const torch::Tensor& logits, const torch::Tensor& gold, int64_t pad_id,
                              double smoothing) {
  TORCH_CHECK(logits.dim() == gold.dim() + 1 && logits.sizes().slice(0, gold.dim()) == gold.sizes(),
              "loss expects logits [..., V] and gold [...], got ", logits.sizes(), " and ", gold.sizes());
  const int64_t vocab = logits.size(-1);
  TORCH_CHECK(pad_id >= 0 && pad_id < vocab, "pad id ", pad_id, " outside the vocabulary of ", vocab);
  auto flat_gold = gold.reshape({-1});
  auto out = SmoothedCrossEntropy::apply(logits.reshape({-1, vocab}), flat_gold, pad_id, smoothing);
  LossParts parts;
  parts.smoothed_sum = out[0];
  parts.nll_sum = out[1].detach();
  parts.tokens = flat_gold.ne(pad_id).sum().item<int64_t>();
  return parts;
}

}  // namespace nmt::train
