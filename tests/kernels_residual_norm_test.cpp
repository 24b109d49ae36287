// kernels::layer_norm_of_sum (the post-norm residual's end in one pass)
// against the reference's formula computed in double from the same inputs,
// and model::LayerNorm::forward_sum against forward(a + b): fp32 and bf16
// sublayer outputs, widths with and without a vector tail, rows over threads;
// with a gradient to keep it takes ATen's path. kernels::add_residual (the
// pre-norm residual's end) against ATen's sum.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/residual_norm.h"
#include "model/layer_norm.h"
#include "tests/test_support.h"

namespace nmt::kernels {
namespace {

// gamma * (s - mean) / sqrt(var + eps) + beta, biased variance, in double.
torch::Tensor reference_norm(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& gamma,
                             const torch::Tensor& beta, double eps) {
  const auto s = a.to(torch::kDouble) + b.to(torch::kDouble);
  const auto mean = s.mean(-1, true);
  const auto var = (s - mean).pow(2).mean(-1, true);
  return gamma.to(torch::kDouble) * (s - mean) / (var + eps).sqrt() + beta.to(torch::kDouble);
}

TEST(ResidualNorm, MatchesTheFormulaInDouble) {
  torch::manual_seed(31);
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    for (int64_t d : {8, 17, 256, 512}) {
      for (int64_t rows : {1, 4, 130}) {
        SCOPED_TRACE(testing::Message() << dtype << " d " << d << " rows " << rows);
        const auto a = (torch::randn({rows, 1, d}) * 3).to(dtype);
        const auto b = torch::randn({rows, 1, d}) + 0.5;
        const auto gamma = torch::rand({d}) + 0.5, beta = torch::randn({d});
        const auto got = layer_norm_of_sum(a, b, gamma, beta, 1e-12);
        EXPECT_EQ(got.scalar_type(), torch::kFloat);
        EXPECT_EQ(got.sizes(), a.sizes());
        // Normalized values are O(1): fp32 sums over d terms stay within ~1e-6.
        EXPECT_TRUE(test::tensors_close(got, reference_norm(a, b, gamma, beta, 1e-12), 1e-5, 1e-5));
        // Without b: LayerNorm(a) alone (pre-norm).
        const auto alone = layer_norm_of_sum(a, torch::Tensor(), gamma, beta, 1e-12);
        EXPECT_TRUE(test::tensors_close(alone, reference_norm(a, torch::zeros_like(b), gamma, beta, 1e-12), 1e-5, 1e-5));
      }
    }
  }
}

TEST(ResidualNorm, LayerNormForwardSumEqualsForwardOfTheSum) {
  torch::manual_seed(32);
  model::LayerNorm norm(256);
  {
    torch::NoGradGuard no_grad;
    norm->gamma.uniform_(0.5, 1.5);
    norm->beta.normal_();
  }
  const auto a = torch::randn({3, 5, 256}), b = torch::randn({3, 5, 256});
  torch::Tensor fused, plain;
  {
    torch::NoGradGuard no_grad;
    fused = norm->forward_sum(a, b);
    plain = norm(a + b);
  }
  EXPECT_TRUE(test::tensors_close(fused, plain, 1e-5, 1e-5));
  {
    torch::NoGradGuard no_grad;  // forward alone, fused, against ATen's layer_norm
    EXPECT_TRUE(test::tensors_close(norm(a), torch::layer_norm(a, {256}, norm->gamma, norm->beta, 1e-12), 1e-5, 1e-5));
  }
  // With a gradient to keep: ATen's path, and the gradient reaches the parameters.
  const auto out = norm->forward_sum(a, b);
  ASSERT_TRUE(out.requires_grad());
  out.sum().backward();
  EXPECT_TRUE(norm->beta.grad().defined());
  EXPECT_TRUE(test::tensors_close(out.detach(), plain, 1e-5, 1e-5));
}

TEST(ResidualNorm, UnsupportedOperandsAreRefusedOrLeftToATen) {
  const auto gamma = torch::ones({4}), beta = torch::zeros({4});
  EXPECT_FALSE(layer_norm_of_sum_supported(torch::zeros({2, 4}), torch::zeros({2, 4}, torch::kDouble), gamma));
  EXPECT_FALSE(layer_norm_of_sum_supported(torch::zeros({2, 4}), torch::zeros({1, 4}), gamma));
  EXPECT_TRUE(test::throws_with<c10::Error>(
      [&] { layer_norm_of_sum(torch::zeros({2, 3}), torch::zeros({2, 3}), gamma, beta, 1e-5); },
      {"unsupported operands"}));
  // LayerNorm's fallback serves what the kernel does not: bf16 + bf16.
  model::LayerNorm norm(4);
  torch::NoGradGuard no_grad;
  const auto a = torch::randn({2, 4}).to(torch::kBFloat16), b = torch::randn({2, 4}).to(torch::kBFloat16);
  EXPECT_TRUE(test::tensors_close(norm->forward_sum(a, b), norm(a + b), 0, 0));
}

// The pre-norm residual's end: x + y computed here equals ATen's sum bit for
// bit (bf16 y widens exactly, one fp32 rounding), for every vector tail and
// sizes split over threads; with a gradient to keep, or operands it does not
// take, it is ATen's sum itself.
TEST(ResidualNorm, AddResidualEqualsATensSumBitForBit) {
  torch::manual_seed(37);
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    for (int64_t d : {1, 15, 16, 17, 512}) {
      for (int64_t rows : {1, 3, 97}) {
        SCOPED_TRACE(testing::Message() << dtype << " d " << d << " rows " << rows);
        const auto x = torch::randn({rows, 1, d}) * 5;
        const auto y = (torch::randn({rows, 1, d}) * 3).to(dtype);
        const auto got = add_residual(x, y);
        EXPECT_EQ(got.scalar_type(), torch::kFloat);
        EXPECT_TRUE(torch::equal(got, x + y));
      }
    }
  }
  auto x = torch::randn({2, 1, 8}).requires_grad_();
  const auto y = torch::randn({2, 1, 8});
  const auto with_grad = add_residual(x, y);
  EXPECT_TRUE(with_grad.requires_grad());
  with_grad.sum().backward();
  EXPECT_TRUE(torch::equal(x.grad(), torch::ones_like(x)));
  // Broadcasting and non-contiguous operands: ATen's sum.
  const auto row = torch::randn({8});
  const auto x2 = torch::randn({2, 1, 8});
  EXPECT_TRUE(torch::equal(add_residual(x2, row), x2 + row));
  const auto strided = torch::randn({8, 2}).t();
  EXPECT_TRUE(torch::equal(add_residual(torch::ones({2, 8}), strided), torch::ones({2, 8}) + strided));
}

}  // namespace
}  // namespace nmt::kernels
