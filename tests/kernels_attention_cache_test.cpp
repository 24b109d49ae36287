// The decoding caches against plain recomputations: the growing self-attention
// cache equals concatenating and index-selecting; beams that share their
// sentence's cross-attention keys and values get what copies would give; the
// stacked Q/K/V weights kept for decoding follow parameter changes.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/attention_cache.h"
#include "model/multi_head_attention.h"
#include "tests/test_support.h"
#include "util/precision.h"

namespace nmt::kernels {
namespace {

TEST(GrowingAttentionCache, EqualsConcatenationAndRowSelection) {
  torch::manual_seed(1);
  GrowingAttentionCache cache;
  torch::Tensor k_ref, v_ref;
  // 3 rows, 2 heads, d_head 4; 40 positions (past the first capacity), rows
  // reordered, duplicated and dropped along the way.
  int64_t rows = 3;
  for (int64_t step = 0; step < 40; ++step) {
    const int64_t fresh = step == 0 ? 3 : 1;
    const auto k = torch::randn({rows, 2, fresh, 4});
    const auto v = torch::randn({rows, 2, fresh, 4});
    cache.append(k, v);
    k_ref = k_ref.defined() ? torch::cat({k_ref, k}, 2) : k;
    v_ref = v_ref.defined() ? torch::cat({v_ref, v}, 2) : v;
    ASSERT_TRUE(test::tensors_close(cache.keys(), k_ref, 0, 0)) << "step " << step;
    ASSERT_TRUE(test::tensors_close(cache.values(), v_ref, 0, 0)) << "step " << step;
    if (step % 7 == 3) {
      const auto index = step < 20 ? torch::tensor({2, 0, 0, 1}, torch::kLong) : torch::tensor({1, 3}, torch::kLong);
      if (index.max().item<int64_t>() >= rows) continue;
      cache.select_rows(index);
      k_ref = k_ref.index_select(0, index);
      v_ref = v_ref.index_select(0, index);
      rows = index.size(0);
    }
  }
  EXPECT_EQ(cache.length(), 42);
  EXPECT_THROW(cache.append(torch::randn({rows + 1, 2, 1, 4}), torch::randn({rows + 1, 2, 1, 4})), c10::Error);
}

TEST(GrowingAttentionCache, AStepsStackedProjectionEqualsHeadSplitAppends) {
  torch::manual_seed(3);
  // 3 rows, 2 heads, d_head 4 (d_model 8), in fp32 and bf16; rows reordered between steps.
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    GrowingAttentionCache stepped, split;
    int64_t rows = 3;
    for (int64_t step = 0; step < 20; ++step) {
      const auto qkv = torch::randn({rows, 1, 24}).to(dtype);
      const auto heads = [&](int64_t part) {  // [rows, head, 1, d_head] of part 1 (keys) or 2 (values)
        return qkv.narrow(2, 8 * part, 8).view({rows, 1, 2, 4}).transpose(1, 2);
      };
      stepped.append_step(qkv, 2);
      split.append(heads(1), heads(2));
      ASSERT_TRUE(torch::equal(stepped.keys(), split.keys())) << "step " << step;
      ASSERT_TRUE(torch::equal(stepped.values(), split.values())) << "step " << step;
      if (step % 5 == 2) {
        const auto index = torch::tensor({2, 0, 0, 1}, torch::kLong).narrow(0, 0, rows == 3 ? 4 : 3);
        stepped.select_rows(index);
        split.select_rows(index);
        rows = index.size(0);
      }
    }
  }
  GrowingAttentionCache cache;
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { cache.append_step(torch::zeros({2, 2, 24}), 2); },
                                            {"[rows, 1, 3 x d_model]"}));
}

class MemoryAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(2);
    attention_ = model::MultiHeadAttention(16, 4);
    attention_->eval();
    memory_ = torch::randn({2, 5, 16});
    mask_ = torch::ones({2, 1, 1, 5}, torch::kBool);
    mask_[1].narrow(-1, 3, 2).fill_(false);  // the second sentence is shorter
  }
  model::MultiHeadAttention attention_{nullptr};
  torch::Tensor memory_, mask_;
};

TEST_F(MemoryAttention, BeamsSharingTheirSentencesKeysEqualCopies) {
  torch::NoGradGuard no_grad;
  const int64_t beams = 3;
  const auto q = torch::randn({2 * beams, 1, 16});
  AttentionCache shared, copied;
  attention_->set_keep_attention(true);
  const auto got = attention_->forward_memory_cached(q, memory_, shared, mask_);
  const auto got_weights = attention_->last_attention();
  const auto expected = attention_->forward_memory_cached(q, memory_.repeat_interleave(beams, 0), copied,
                                                          mask_.repeat_interleave(beams, 0));
  const auto expected_weights = attention_->last_attention();
  EXPECT_EQ(shared.k.size(0), 2);  // one memory row per sentence, not per beam
  EXPECT_EQ(copied.k.size(0), 2 * beams);
  EXPECT_TRUE(test::tensors_close(got, expected, 1e-6, 1e-6));
  EXPECT_TRUE(test::tensors_close(got_weights, expected_weights, 1e-6, 1e-6));
  EXPECT_TRUE(test::tensors_close(got_weights.select(0, beams + 1).narrow(-1, 3, 2), torch::zeros({4, 1, 2}), 0, 0));
  EXPECT_THROW(attention_->forward_memory_cached(torch::randn({5, 1, 16}), memory_, shared, mask_), c10::Error);
}

TEST_F(MemoryAttention, StackedDecodingWeightsFollowParameterChanges) {
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({2, 1, 16});
  GrowingAttentionCache first;
  const auto before = attention_->forward_self_cached(x, first, {});
  attention_->w_k->weight.mul_(0.5);  // in place, as loading a state_dict does
  attention_->w_v->bias.add_(1.0);
  GrowingAttentionCache second;
  const auto after = attention_->forward_self_cached(x, second, {});
  const auto expected = attention_->forward(x, x, x, {});  // stacks the weights afresh
  EXPECT_TRUE(test::tensors_close(after, expected, 1e-6, 1e-6));
  EXPECT_FALSE(test::tensors_close(after, before, 1e-3, 1e-3));
  // Under bf16 autocast, the stacked weights are kept in bf16: the same as
  // autocast casting the fp32 ones at every call.
  GrowingAttentionCache third;
  torch::Tensor bf16_cached, bf16_plain;
  {
    PrecisionScope autocast(Precision::kBf16, torch::kCPU);
    bf16_cached = attention_->forward_self_cached(x, third, {});
    bf16_plain = attention_->forward(x, x, x, {});
  }
  EXPECT_TRUE(test::tensors_close(bf16_cached.to(torch::kFloat), bf16_plain.to(torch::kFloat), 0, 0));
  GrowingAttentionCache fourth;
  EXPECT_TRUE(test::tensors_close(attention_->forward_self_cached(x, fourth, {}), expected, 1e-6, 1e-6));
}

}  // namespace
}  // namespace nmt::kernels
