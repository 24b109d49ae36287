// model::Linear: torch::nn::Linear's names and initialisation, and its
// inference path (weights kept between calls) equal to a plain linear, in
// fp32 and under bf16 autocast, following in-place parameter updates.
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/packed_linear.h"
#include "model/linear.h"
#include "tests/test_support.h"
#include "util/precision.h"

namespace nmt::model {
namespace {

TEST(Linear, SameNamesAndInitialisationAsTorchLinear) {
  torch::manual_seed(4);
  torch::nn::Linear plain(12, 7);
  torch::manual_seed(4);
  Linear ours(12, 7);
  const auto a = plain->named_parameters(), b = ours->named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& p : a) {
    ASSERT_TRUE(b.contains(p.key())) << p.key();
    EXPECT_TRUE(torch::equal(p.value(), b[p.key()])) << p.key();
  }
}

TEST(Linear, InferenceEqualsPlainLinearAndFollowsParameterUpdates) {
  torch::manual_seed(5);
  Linear l(16, 9);
  const auto x = torch::randn({3, 2, 16});
  for (int round = 0; round < 2; ++round) {
    const auto expected = torch::linear(x, l->weight, l->bias).detach();
    torch::Tensor got;
    {
      c10::InferenceMode inference;
      got = l(x);
      // On the CPU: the packed fp32 product, whose bits do not depend on the
      // batch (kernels/step_product.h); ATen's sums in another order.
      if (kernels::PackedLinear::available(torch::kFloat)) {
        EXPECT_TRUE(torch::equal(got, kernels::PackedLinear(l->weight, l->bias, torch::kFloat).forward(x)))
            << "round " << round;
      }
    }
    EXPECT_TRUE(test::tensors_close(got, expected, 1e-6, 1e-6)) << "round " << round << ", largest difference "
                                                                << (got - expected).abs().max().item<float>();
    torch::NoGradGuard no_grad;
    l->weight.add_(0.5);  // an optimizer step: the kept weights must follow
    l->bias.mul_(-1);
  }
}

TEST(Linear, InferenceUnderBf16AutocastEqualsAutocastLinearAfterUpdates) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "LibTorch without oneDNN: no CPU bf16";
  torch::manual_seed(6);
  Linear l(32, 24);
  const auto x = torch::randn({5, 32});
  for (int round = 0; round < 2; ++round) {
    {
      c10::InferenceMode inference;
      PrecisionScope bf16(Precision::kBf16, torch::kCPU);
      const auto expected = torch::linear(x, l->weight, l->bias);
      const auto got = l(x);
      ASSERT_EQ(got.scalar_type(), torch::kBFloat16);
      EXPECT_TRUE(torch::equal(got, expected)) << "round " << round;
      EXPECT_TRUE(torch::equal(l(x), expected)) << "round " << round << ", again from the kept bf16 weights";
    }
    torch::NoGradGuard no_grad;
    l->weight.mul_(2).add_(0.25);  // the kept bf16 copy is stale now
  }
}

}  // namespace
}  // namespace nmt::model
