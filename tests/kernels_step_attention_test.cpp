// Step attention (one new position per row, read where the caches keep the
// keys and values) against softmax(q k^T / sqrt(d_head)) v computed in double
// from the gathered keys and values: the self-attention cache after rows were
// reordered, duplicated, dropped and grown; a memory shared by groups of rows
// with padding hidden; fp32 and bf16 caches; head sizes with and without a
// vector tail. Scores, softmax and sums run in fp32; the result comes in the
// cache's dtype.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/attention_cache.h"
#include "kernels/step_attention.h"
#include "model/scale_dot_product_attention.h"
#include "tests/test_support.h"

namespace nmt::kernels {
namespace {

// q [rows, head, d_head], k/v [rows, head, len, d_head], mask [rows, len]
// (undefined: none) -> output [rows, head, d_head] and weights [rows, head, len], in double.
std::pair<torch::Tensor, torch::Tensor> expected_attention(const torch::Tensor& q, const torch::Tensor& k,
                                                           const torch::Tensor& v, const torch::Tensor& mask) {
  const auto qd = q.to(torch::kDouble).unsqueeze(2);  // [rows, head, 1, d_head]
  auto score = torch::matmul(qd, k.to(torch::kDouble).transpose(2, 3)) / std::sqrt(static_cast<double>(q.size(2)));
  if (mask.defined()) score = score.masked_fill(mask.view({mask.size(0), 1, 1, -1}) == 0, model::kMaskedScore);
  const auto weights = torch::softmax(score, -1);
  return {torch::matmul(weights, v.to(torch::kDouble)).squeeze(2), weights.squeeze(2)};
}

// fp32 sums; a bf16 result is rounded once more (2^-8 relative).
double result_rtol(torch::ScalarType dtype) { return dtype == torch::kBFloat16 ? 1.0 / 256 : 1e-5; }

struct Case {
  torch::ScalarType dtype;
  int64_t d_head;
};

class StepAttentionTest : public ::testing::TestWithParam<Case> {};

TEST_P(StepAttentionTest, SelfCacheAfterReorderingEqualsGatheredAttention) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(3);
  const auto [dtype, d_head] = GetParam();
  const int64_t heads = 3;
  GrowingAttentionCache cache;
  int64_t rows = 2;  // grows to 6 (beams appear), shrinks to 3 (sentences leave)
  for (int64_t step = 0; step < 37; ++step) {
    const int64_t fresh = step == 0 ? 2 : 1;
    cache.append(torch::randn({rows, heads, fresh, d_head}).to(dtype),
                 torch::randn({rows, heads, fresh, d_head}).to(dtype));
    if (step == 1) {
      cache.select_rows(torch::tensor({0, 0, 1, 1, 1, 0}, torch::kLong));
    } else if (step == 20) {
      cache.select_rows(torch::tensor({5, 2, 2}, torch::kLong));
    } else if (step % 3 == 0) {
      cache.select_rows(torch::randint(rows, {rows}, torch::kLong));
    }
    rows = cache.rows();
    const auto q = torch::randn({rows, heads, d_head}).to(dtype);
    torch::Tensor weights;
    const auto got = step_attention(q, cache.step_memory(), &weights);
    const auto [out, expected_weights] = expected_attention(q, cache.keys(), cache.values(), {});
    ASSERT_TRUE(test::tensors_close(got, out, result_rtol(dtype), 1e-5)) << "step " << step;
    ASSERT_TRUE(test::tensors_close(weights, expected_weights, 1e-5, 1e-6)) << "step " << step;
    ASSERT_EQ(got.scalar_type(), dtype);
  }
  EXPECT_EQ(rows, 3);
}

TEST_P(StepAttentionTest, GroupsSharingAMemoryWithPaddingEqualCopiedMemory) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(4);
  const auto [dtype, d_head] = GetParam();
  const int64_t memory_rows = 3, heads = 2, len = 7, group = 4;
  // As the decoder keeps them: a head-split view of a [rows, len, 2 * d_model] projection.
  const auto kv = torch::randn({memory_rows, len, 2 * heads * d_head}).to(dtype);
  AttentionCache cache;
  cache.k = kv.narrow(2, 0, heads * d_head).view({memory_rows, len, heads, d_head}).transpose(1, 2);
  cache.v = kv.narrow(2, heads * d_head, heads * d_head).view({memory_rows, len, heads, d_head}).transpose(1, 2);
  auto mask = torch::ones({memory_rows, 1, 1, len}, torch::kBool);
  mask[1].narrow(-1, 4, 3).fill_(false);
  mask[2].narrow(-1, 6, 1).fill_(false);
  const auto q = torch::randn({memory_rows * group, heads, d_head}).to(dtype);
  torch::Tensor weights;
  const auto got = step_attention(q, cache.step_memory(group, mask), &weights);
  const auto [out, expected_weights] =
      expected_attention(q, cache.k.repeat_interleave(group, 0), cache.v.repeat_interleave(group, 0),
                         mask.view({memory_rows, len}).repeat_interleave(group, 0));
  EXPECT_TRUE(test::tensors_close(got, out, result_rtol(dtype), 1e-5));
  EXPECT_TRUE(test::tensors_close(weights, expected_weights, 1e-5, 1e-6));
  EXPECT_TRUE(
      test::tensors_close(weights.narrow(0, group, group).narrow(-1, 4, 3), torch::zeros({group, heads, 3}), 0, 0));
}

TEST_P(StepAttentionTest, CoverageAddsTheHeadMeanOfTheWeights) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(6);
  const auto [dtype, d_head] = GetParam();
  const int64_t memory_rows = 2, heads = 4, len = 5, group = 3;
  AttentionCache cache;
  cache.k = torch::randn({memory_rows, heads, len, d_head}).to(dtype);
  cache.v = torch::randn({memory_rows, heads, len, d_head}).to(dtype);
  auto mask = torch::ones({memory_rows, 1, 1, len}, torch::kBool);
  mask[1].narrow(-1, 3, 2).fill_(false);
  // Two steps add up; what was there before stays.
  auto coverage = torch::full({memory_rows * group, len}, 0.25f);
  torch::Tensor expected = coverage.to(torch::kDouble);
  for (int step = 0; step < 2; ++step) {
    const auto q = torch::randn({memory_rows * group, heads, d_head}).to(dtype);
    step_attention(q, cache.step_memory(group, mask), nullptr, &coverage);
    const auto [out, weights] =
        expected_attention(q, cache.k.repeat_interleave(group, 0), cache.v.repeat_interleave(group, 0),
                           mask.view({memory_rows, len}).repeat_interleave(group, 0));
    expected = expected + weights.mean(1);
  }
  EXPECT_TRUE(test::tensors_close(coverage, expected, 1e-5, 1e-6));
  // Each step spreads one unit of mass over the positions: 0.25 x len + 2 per row.
  EXPECT_TRUE(test::tensors_close(coverage.sum(1), torch::full({memory_rows * group}, 0.25 * len + 2.0), 1e-5, 1e-5));
  auto wrong = torch::zeros({1, len});
  EXPECT_THROW(step_attention(torch::randn({memory_rows * group, heads, d_head}).to(dtype),
                              cache.step_memory(group, mask), nullptr, &wrong),
               c10::Error);
}

INSTANTIATE_TEST_SUITE_P(DtypesAndHeadSizes, StepAttentionTest,
                         ::testing::Values(Case{torch::kFloat, 64}, Case{torch::kFloat, 32}, Case{torch::kFloat, 20},
                                           Case{torch::kBFloat16, 64}, Case{torch::kBFloat16, 32},
                                           Case{torch::kBFloat16, 8}));

TEST(StepAttention, RefusesLayoutsOutsideItsBuffers) {
  torch::NoGradGuard no_grad;
  AttentionCache cache;
  cache.k = torch::randn({2, 2, 5, 8});
  cache.v = torch::randn({2, 2, 5, 8});
  // Two memory rows serve groups of 2: 5 query rows would need a third.
  EXPECT_THROW(step_attention(torch::randn({5, 2, 8}), cache.step_memory(2, {})), c10::Error);
  EXPECT_THROW(step_attention(torch::randn({4, 2, 8}), cache.step_memory(2, torch::ones({2, 1, 1, 4}))), c10::Error);
  GrowingAttentionCache self;
  self.append(torch::randn({3, 2, 1, 8}), torch::randn({3, 2, 1, 8}));
  EXPECT_THROW(step_attention(torch::randn({4, 2, 8}), self.step_memory()), c10::Error);
  EXPECT_THROW(self.select_rows(torch::tensor({3}, torch::kLong)), c10::Error);
  // No rows left: nothing to attend from, nothing read.
  EXPECT_EQ(step_attention(torch::randn({0, 2, 8}), cache.step_memory(2, {})).size(0), 0);
}

}  // namespace
}  // namespace nmt::kernels
