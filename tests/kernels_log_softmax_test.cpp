// kernels::log_softmax_rows_ and log_sum_exp, on every vector ISA this CPU
// runs, against log-softmax computed in double precision from the same float
// inputs (and against ATen's float log_softmax), for row lengths that leave
// every kind of tail, with -inf entries and rows split over threads.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/log_softmax.h"
#include "tests/test_support.h"

namespace nmt::kernels {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::vector<VectorIsa> isas_here() {
  std::vector<VectorIsa> out;
  for (auto isa : {VectorIsa::kScalar, VectorIsa::kAvx2, VectorIsa::kAvx512}) {
    if (cpu_supports(isa)) out.push_back(isa);
  }
  return out;
}

// log_softmax of each row in double: max + log(sum exp(x - max)), -inf kept.
torch::Tensor exact_log_softmax(const torch::Tensor& x) { return torch::log_softmax(x.to(torch::kDouble), 1); }

// Entries the exact result calls -inf must be -inf; the rest within the
// stated bound: 1e-6 for the sum of exps (~1e-7 relative error of the
// polynomial exp and of float block sums), plus two float roundings (2^-23
// relative each) at the row's scale, max |x|: its maximum plus log(sum), and
// x minus that.
::testing::AssertionResult matches_exact(const torch::Tensor& got, const torch::Tensor& exact, double scale) {
  const auto infinite = torch::isinf(exact);
  if (!torch::equal(torch::isinf(got), infinite)) return ::testing::AssertionFailure() << "-inf entries moved";
  const auto finite = infinite.logical_not();
  return test::tensors_close(got.masked_select(finite), exact.masked_select(finite), /*rtol=*/0,
                             /*atol=*/1e-6 + 2 * scale / (1 << 23));
}

double scale_of(const torch::Tensor& x) { return x.masked_select(torch::isfinite(x)).abs().max().item<double>(); }

TEST(LogSoftmax, MatchesDoublePrecisionForEveryTailAndIsa) {
  torch::manual_seed(11);
  for (const auto isa : isas_here()) {
    SCOPED_TRACE(isa_name(isa));
    for (int64_t columns : {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100, 8000, 8003}) {
      SCOPED_TRACE(columns);
      const auto x = torch::randn({3, columns}) * 8;
      auto got = x.clone();
      log_softmax_rows_(got, isa);
      EXPECT_TRUE(matches_exact(got, exact_log_softmax(x), scale_of(x)));
      for (int64_t r = 0; r < 3; ++r) {
        const double lse = std::log(x[r].to(torch::kDouble).exp().sum().item<double>());
        EXPECT_NEAR(log_sum_exp(x[r].data_ptr<float>(), columns, isa), lse, 1e-6 + std::abs(lse) / (1 << 23));
      }
    }
  }
}

TEST(LogSoftmax, AgreesWithATenOnADecodingStep) {
  torch::manual_seed(12);
  const auto logits = torch::randn({128, 8000}) * 5 + 3;  // a beam-4 x 32 step, rows over both threads
  auto got = logits.clone();
  log_softmax_rows_(got);
  EXPECT_TRUE(test::tensors_close(got, torch::log_softmax(logits, 1), 1e-6, 1e-5));
  EXPECT_TRUE(matches_exact(got, exact_log_softmax(logits), scale_of(logits)));
}

TEST(LogSoftmax, NegativeInfinityIsProbabilityZero) {
  for (const auto isa : isas_here()) {
    SCOPED_TRACE(isa_name(isa));
    auto x = torch::randn({4, 37});
    x.index_put_({0, torch::indexing::Slice(0, 20)}, kNegInf);  // part of a row forbidden
    x.index_put_({1, 36}, kNegInf);                              // the tail's last entry
    x.index_put_({2}, kNegInf);                                  // a whole row: left as it is
    auto got = x.clone();
    log_softmax_rows_(got, isa);
    EXPECT_TRUE(matches_exact(got.narrow(0, 0, 2), exact_log_softmax(x.narrow(0, 0, 2)), scale_of(x)));
    EXPECT_TRUE(torch::equal(got[2], x[2]));
    EXPECT_TRUE(matches_exact(got.narrow(0, 3, 1), exact_log_softmax(x.narrow(0, 3, 1)), scale_of(x)));
    // The finite part of row 0 is a distribution of its own.
    EXPECT_NEAR(got[0].narrow(0, 20, 17).to(torch::kDouble).exp().sum().item<double>(), 1.0, 1e-6);
    EXPECT_EQ(log_sum_exp(x[2].data_ptr<float>(), 37, isa), kNegInf);
  }
}

TEST(LogSoftmax, ExtremeLogitsStayFinite) {
  for (const auto isa : isas_here()) {
    SCOPED_TRACE(isa_name(isa));
    // A dominant logit (others ~e^-300 below: their terms underflow to nothing)
    // and huge magnitudes that would overflow exp without the maximum taken out.
    auto x = torch::tensor({{300.0f, 0.0f, -5.0f, 1.0f}, {100.0f, 100.0f, -100.0f, 0.0f}});
    auto got = x.clone();
    log_softmax_rows_(got, isa);
    EXPECT_TRUE(torch::isfinite(got).all().item<bool>()) << got;
    EXPECT_FLOAT_EQ(got[0][0].item<float>(), 0.0f);
    EXPECT_NEAR(got[1][0].item<float>(), -std::log(2.0), 1e-5);  // float rounding at 100: 2^-17
  }
}

TEST(LogSoftmax, RefusesWhatItCannotTakeInPlace) {
  auto not_float = torch::zeros({2, 3}, torch::kDouble);
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { log_softmax_rows_(not_float); }, {"contiguous [rows, columns]"}));
  auto strided = torch::zeros({3, 2}).t();
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { log_softmax_rows_(strided); }, {"float scores on the CPU"}));
}

}  // namespace
}  // namespace nmt::kernels
