// The fast CPU dropout: the reference's semantics (identity in eval mode;
// zero with probability p, else scale by 1 / (1 - p)), the keep rate, masks
// that depend only on (seed, element index), reproducibility through the
// global generator, and the backward pass's mask drawn again from the seed.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/dropout_mask.h"
#include "model/dropout.h"
#include "tests/test_support.h"

namespace nmt::model {
namespace {

TEST(Dropout, EvalModeAndZeroProbabilityAreIdentity) {
  auto x = torch::randn({4, 7});
  Dropout eval_drop(0.3);
  eval_drop->eval();
  EXPECT_TRUE(torch::equal(eval_drop(x), x));
  Dropout none(0.0);
  EXPECT_TRUE(torch::equal(none(x), x));
}

TEST(Dropout, MaskHoldsZeroOrTheScaleAtTheKeepRate) {
  for (double p : {0.1, 0.3}) {
    const int64_t n = 1 << 20;
    auto mask = kernels::dropout_mask(torch::empty({n}), p, 12345);
    const float scale = static_cast<float>(1.0 / (1.0 - p));
    auto is_zero = mask.eq(0), is_scale = mask.eq(scale);
    EXPECT_TRUE(is_zero.logical_or(is_scale).all().item<bool>()) << "p " << p;
    // Binomial: the kept share lies within 5 standard deviations of 1 - p.
    const double kept = is_scale.sum().item<double>() / n;
    EXPECT_NEAR(kept, 1 - p, 5 * std::sqrt(p * (1 - p) / n)) << "p " << p;
    // Neighbouring elements are independent: both kept at rate (1 - p)^2.
    const double both = is_scale.narrow(0, 0, n - 1).logical_and(is_scale.narrow(0, 1, n - 1)).sum().item<double>();
    EXPECT_NEAR(both / (n - 1), (1 - p) * (1 - p), 0.005) << "p " << p;
  }
}

TEST(Dropout, MaskDependsOnlyOnSeedAndIndex) {
  auto a = kernels::dropout_mask(torch::empty({1001}), 0.2, 77);
  auto b = kernels::dropout_mask(torch::empty({2, 3000}), 0.2, 77).flatten().narrow(0, 0, 1001);
  EXPECT_TRUE(torch::equal(a, b));
  auto c = kernels::dropout_mask(torch::empty({1001}), 0.2, 78);
  EXPECT_FALSE(torch::equal(a, c));
  auto bf = kernels::dropout_mask(torch::empty({1001}, torch::kBFloat16), 0.2, 77);
  EXPECT_EQ(bf.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(bf.to(torch::kFloat).eq(0), a.eq(0)));
}

TEST(Dropout, SameGlobalSeedGivesSameOutputAndGradientIsTheMask) {
  Dropout drop(0.25);
  drop->train();
  auto x = torch::randn({64, 33}).requires_grad_();
  torch::manual_seed(9);
  auto y1 = drop(x);
  torch::manual_seed(9);
  auto y2 = drop(x);
  EXPECT_TRUE(torch::equal(y1, y2));
  auto y3 = drop(x);  // the generator moved on
  EXPECT_FALSE(torch::equal(y1, y3));
  y1.sum().backward();
  auto mask = (y1.detach() / x.detach());
  EXPECT_TRUE(test::tensors_close(x.grad(), mask, 1e-6, 1e-6));
}

TEST(Dropout, BackwardDrawsTheSameMaskAgainFromItsSeed) {
  auto x = torch::randn({37, 29}).requires_grad_();
  const uint64_t seed = 4242;
  auto y = kernels::apply_dropout(x, 0.3, seed);
  const auto mask = kernels::dropout_mask(x.detach(), 0.3, seed);
  EXPECT_TRUE(torch::equal(y.detach(), x.detach() * mask));
  // The upstream gradient arrives transposed (not contiguous) and not uniform.
  auto w = torch::randn({29, 37});
  (y.t() * w).sum().backward();
  EXPECT_TRUE(torch::equal(x.grad(), w.t() * mask));
}

// The vectorised paths (float, bfloat16) against the mask: every element,
// over lengths that leave a tail after the widest vectors, and a NaN that
// stays NaN where its element is dropped, as x * mask keeps it.
TEST(Dropout, VectorisedPathsEqualTheMaskProductForEveryDtype) {
  for (auto dtype : {torch::kFloat, torch::kBFloat16, torch::kDouble}) {
    for (int64_t n : {1, 15, 16, 33, 40001}) {
      auto x = torch::randn({n}).to(dtype);
      x[0] = std::nan("");
      const auto y = kernels::apply_dropout(x, 0.1, 99);
      const auto mask = kernels::dropout_mask(x, 0.1, 99);
      const auto want = x * mask;
      EXPECT_TRUE(torch::equal(y.isnan(), want.isnan())) << dtype << " n " << n;
      EXPECT_TRUE(torch::equal(y.nan_to_num(0), want.nan_to_num(0))) << dtype << " n " << n;
    }
  }
}

}  // namespace
}  // namespace nmt::model
