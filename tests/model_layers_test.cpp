// Unit checks of the building blocks against direct computations.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/layer_norm.h"
#include "model/masks.h"
#include "model/multi_head_attention.h"
#include "model/positional_encoding.h"
#include "tests/test_support.h"

namespace nmt::model {
namespace {

TEST(Masks, SourceMaskHidesPadding) {
  auto src = torch::tensor({{5, 6, 7, 1}, {8, 1, 1, 1}}, torch::kLong);
  auto mask = make_src_mask(src, 1);
  ASSERT_EQ(mask.sizes(), torch::IntArrayRef({2, 1, 1, 4}));
  auto expected = torch::tensor({{1, 1, 1, 0}, {1, 0, 0, 0}}, torch::kBool).view({2, 1, 1, 4});
  EXPECT_TRUE(torch::equal(mask, expected));
}

TEST(Masks, TargetMaskIsCausalAndHidesPaddedRows) {
  auto trg = torch::tensor({{2, 9, 1}}, torch::kLong);
  auto mask = make_trg_mask(trg, 1);
  ASSERT_EQ(mask.sizes(), torch::IntArrayRef({1, 1, 3, 3}));
  auto expected = torch::tensor({{1, 0, 0}, {1, 1, 0}, {0, 0, 0}}, torch::kBool).view({1, 1, 3, 3});
  EXPECT_TRUE(torch::equal(mask, expected));
}

TEST(PositionalEncoding, MatchesTheFormulaInDoublePrecision) {
  const int64_t max_len = 50, d = 12;
  auto table = sinusoid_table(max_len, d);
  ASSERT_EQ(table.sizes(), torch::IntArrayRef({max_len, d}));
  auto expected = torch::empty({max_len, d}, torch::kDouble);
  for (int64_t pos = 0; pos < max_len; ++pos) {
    for (int64_t i = 0; i < d / 2; ++i) {
      double angle = pos / std::pow(10000.0, 2.0 * i / d);
      expected[pos][2 * i] = std::sin(angle);
      expected[pos][2 * i + 1] = std::cos(angle);
    }
  }
  EXPECT_TRUE(test::tensors_close(table, expected, 0, 2e-5));
  EXPECT_FLOAT_EQ(table[0][1].item<float>(), 1.0f);  // cos(0)
  EXPECT_FLOAT_EQ(table[0][0].item<float>(), 0.0f);  // sin(0)
}

TEST(PositionalEncoding, ReturnsRowsFromOffsetAndRejectsOverflow) {
  PositionalEncoding pe(8, 10, /*learned=*/false);
  auto table = sinusoid_table(10, 8);
  EXPECT_TRUE(torch::equal(pe(3, 4), table.narrow(0, 4, 3)));
  EXPECT_THROW(pe(5, 6), c10::Error);
}

TEST(LayerNorm, MatchesDirectComputation) {
  torch::manual_seed(0);
  LayerNorm norm(6);
  {
    torch::NoGradGuard no_grad;
    norm->gamma.uniform_(0.5, 1.5);
    norm->beta.uniform_(-0.5, 0.5);
  }
  auto x = torch::randn({2, 3, 6});
  auto out = norm(x);
  auto xd = x.to(torch::kDouble);
  auto mean = xd.sum(-1, true) / 6.0;
  auto var = (xd - mean).pow(2).sum(-1, true) / 6.0;  // biased
  auto expected = norm->gamma.to(torch::kDouble) * (xd - mean) / torch::sqrt(var + 1e-12) +
                  norm->beta.to(torch::kDouble);
  EXPECT_TRUE(test::tensors_close(out, expected, 1e-5, 1e-5));
}

TEST(MultiHeadAttention, ShapesAndMaskedKeysGetZeroWeight) {
  torch::manual_seed(1);
  MultiHeadAttention mha(16, 4);
  mha->set_keep_attention(true);
  auto q = torch::randn({2, 3, 16});
  auto kv = torch::randn({2, 5, 16});
  auto src = torch::tensor({{4, 4, 4, 1, 1}, {4, 4, 4, 4, 4}}, torch::kLong);
  auto out = mha(q, kv, kv, make_src_mask(src, 1));
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({2, 3, 16}));
  const auto& w = mha->last_attention();
  ASSERT_EQ(w.sizes(), torch::IntArrayRef({2, 4, 3, 5}));
  // exp(-10000 - max) underflows to exactly zero in float32.
  EXPECT_EQ(w.index({0, torch::indexing::Slice(), torch::indexing::Slice(), torch::indexing::Slice(3, 5)})
                .abs().max().item<float>(), 0.0f);
  EXPECT_TRUE(test::tensors_close(w.sum(-1), torch::ones({2, 4, 3}), 1e-6, 1e-6));
}

TEST(MultiHeadAttention, MatchesAHandWrittenComputation) {
  torch::manual_seed(2);
  const int64_t d = 8, h = 2, dh = d / h;
  MultiHeadAttention mha(d, h);
  auto x = torch::randn({1, 4, d});
  auto out = mha(x, x, x, torch::Tensor());
  auto proj = [&](nmt::model::Linear& l) { return torch::matmul(x, l->weight.t()) + l->bias; };
  auto q = proj(mha->w_q), k = proj(mha->w_k), v = proj(mha->w_v);
  std::vector<torch::Tensor> heads;
  for (int64_t i = 0; i < h; ++i) {
    auto qi = q.narrow(2, i * dh, dh), ki = k.narrow(2, i * dh, dh), vi = v.narrow(2, i * dh, dh);
    auto w = torch::softmax(torch::matmul(qi, ki.transpose(1, 2)) / std::sqrt(double(dh)), -1);
    heads.push_back(torch::matmul(w, vi));
  }
  auto expected = torch::matmul(torch::cat(heads, 2), mha->w_concat->weight.t()) + mha->w_concat->bias;
  EXPECT_TRUE(test::tensors_close(out, expected, 1e-5, 1e-6));
}

// At inference on the CPU in fp32, self-attention with a padding mask reads
// the stacked projection in place through step attention: it agrees with the
// general path (the attention weights kept force that one), and a sentence
// gives the same bits alone as padded in a batch.
TEST(MultiHeadAttention, SelfAttentionAtInferenceMatchesTheGeneralPath) {
  torch::manual_seed(3);
  MultiHeadAttention mha(16, 4);
  mha->eval();
  torch::NoGradGuard no_grad;
  auto x = torch::randn({3, 6, 16});
  auto src = torch::tensor({{4, 4, 4, 4, 1, 1}, {4, 4, 4, 4, 4, 4}, {4, 4, 1, 1, 1, 1}}, torch::kLong);
  const auto mask = make_src_mask(src, 1);
  const auto fast = mha(x, x, x, mask);
  mha->set_keep_attention(true);
  const auto general = mha(x, x, x, mask);
  mha->set_keep_attention(false);
  EXPECT_FALSE(torch::equal(fast, general)) << "the paths are expected to round differently; is the fast one taken?";
  EXPECT_TRUE(test::tensors_close(fast, general, 1e-5, 1e-6));
  for (int64_t b = 0; b < 3; ++b) {
    const int64_t len = src[b].ne(1).sum().item<int64_t>();
    const auto alone_x = x[b].narrow(0, 0, len).unsqueeze(0);
    const auto alone = mha(alone_x, alone_x, alone_x, torch::Tensor());
    EXPECT_TRUE(torch::equal(alone[0], fast[b].narrow(0, 0, len))) << "sentence " << b;
  }
}

}  // namespace
}  // namespace nmt::model
