// The fused label-smoothed loss against a direct computation in double
// precision: loss sums, token count, and the gradient (autograd through the
// direct formula), for fp32 and bf16 logits, with and without smoothing.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tests/test_support.h"
#include "train/loss.h"

namespace nmt::train {
namespace {

constexpr int64_t kPad = 1;

struct Direct {
  torch::Tensor smoothed, nll;
};

// The textbook formula over materialised log-probabilities, in double.
Direct direct_loss(const torch::Tensor& logits, const torch::Tensor& gold, double eps) {
  const int64_t vocab = logits.size(-1);
  auto lp = torch::log_softmax(logits.to(torch::kDouble).reshape({-1, vocab}), -1);
  auto g = gold.reshape({-1});
  auto keep = g.ne(kPad).to(torch::kDouble);
  auto nll = -lp.gather(1, g.unsqueeze(1)).squeeze(1);
  auto uniform = -(lp.sum(1) - lp.select(1, kPad)) / static_cast<double>(vocab - 1);
  return {(((1 - eps) * nll + eps * uniform) * keep).sum(), (nll * keep).sum()};
}

torch::Tensor random_gold(int64_t batch, int64_t len, int64_t vocab) {
  auto gold = torch::randint(2, vocab, {batch, len}, torch::kLong);
  gold.narrow(1, len - 2, 2).narrow(0, 0, batch / 2).fill_(kPad);  // padded tails on half the rows
  return gold;
}

class SmoothedLoss : public ::testing::TestWithParam<double> {};

// 700 rows span several of the loss's 256-row blocks, the last one partial.
TEST_P(SmoothedLoss, MatchesDirectComputationAndItsGradient) {
  const double eps = GetParam();
  torch::manual_seed(3);
  auto logits = (torch::randn({35, 20, 97}) * 3).requires_grad_();
  auto gold = random_gold(35, 20, 97);
  auto parts = label_smoothed_loss(logits, gold, kPad, eps);
  auto expected = direct_loss(logits, gold, eps);
  EXPECT_EQ(parts.tokens, gold.ne(kPad).sum().item<int64_t>());
  EXPECT_TRUE(test::tensors_close(parts.smoothed_sum.reshape({1}), expected.smoothed.reshape({1}), 1e-5, 0));
  EXPECT_TRUE(test::tensors_close(parts.nll_sum.reshape({1}), expected.nll.reshape({1}), 1e-5, 0));
  EXPECT_FALSE(parts.nll_sum.requires_grad());

  (parts.smoothed_sum * 0.5).backward();
  auto x = logits.detach().to(torch::kDouble).requires_grad_();
  (direct_loss(x, gold, eps).smoothed * 0.5).backward();
  EXPECT_TRUE(test::tensors_close(logits.grad(), x.grad(), 1e-4, 1e-7));
  // Padding positions get exactly no gradient.
  auto pad_rows = gold.eq(kPad);
  EXPECT_EQ(logits.grad().index({pad_rows}).abs().max().item<float>(), 0.0f);
}

INSTANTIATE_TEST_SUITE_P(Smoothing, SmoothedLoss, ::testing::Values(0.0, 0.1, 0.3));

TEST(SmoothedLoss, Bf16LogitsComputeInFp32AndReturnBf16Gradients) {
  torch::manual_seed(4);
  auto logits = (torch::randn({300, 61}) * 2).to(torch::kBFloat16).requires_grad_();
  auto gold = random_gold(100, 3, 61).reshape({300});
  auto parts = label_smoothed_loss(logits, gold, kPad, 0.1);
  EXPECT_EQ(parts.smoothed_sum.scalar_type(), torch::kFloat);
  // The same bf16 values, widened exactly, give the same loss to fp32 accuracy.
  auto expected = direct_loss(logits.detach(), gold, 0.1);
  EXPECT_TRUE(test::tensors_close(parts.smoothed_sum.reshape({1}), expected.smoothed.reshape({1}), 1e-5, 0));
  parts.smoothed_sum.backward();
  ASSERT_EQ(logits.grad().scalar_type(), torch::kBFloat16);
  auto x = logits.detach().to(torch::kDouble).requires_grad_();
  direct_loss(x, gold, 0.1).smoothed.backward();
  // bf16 keeps 8 bits of mantissa: relative 2^-8 on each gradient element.
  EXPECT_TRUE(test::tensors_close(logits.grad(), x.grad(), 1.0 / 256, 1e-3));
}

TEST(SmoothedLoss, WithoutSmoothingAMinusInfinityLogitStaysFinite) {
  auto logits = torch::randn({4, 9});
  logits[0][5] = -std::numeric_limits<float>::infinity();  // e.g. a masked-out class
  auto gold = torch::tensor({2, 3, 4, 1}, torch::kLong);
  auto parts = label_smoothed_loss(logits, gold, kPad, 0.0);
  EXPECT_TRUE(std::isfinite(parts.smoothed_sum.item<float>()));
  EXPECT_FLOAT_EQ(parts.smoothed_sum.item<float>(), parts.nll_sum.item<float>());
}

TEST(SmoothedLoss, RejectsMismatchedShapes) {
  auto logits = torch::randn({4, 5, 10});
  EXPECT_THROW(label_smoothed_loss(logits, torch::ones({4, 6}, torch::kLong), kPad, 0.1), c10::Error);
}

}  // namespace
}  // namespace nmt::train
