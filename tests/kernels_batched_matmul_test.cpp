// The attention product through cblas_sgemm against torch::matmul in double:
// contiguous operands, transposed keys and split-head views, forward and
// gradients; bf16 falls through to torch::matmul.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/batched_matmul.h"
#include "tests/test_support.h"
#include "util/precision.h"
#include "util/threads.h"

namespace nmt::kernels {
namespace {

// Heads split from [batch, len, d_model] the way MultiHeadAttention does.
torch::Tensor split_heads(const torch::Tensor& x, int64_t heads) {
  return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}

TEST(BatchedMatmul, MatchesMatmulOnSplitHeadsAndTransposedKeys) {
  torch::manual_seed(5);
  auto q = split_heads(torch::randn({3, 7, 24}), 4).requires_grad_(false);
  auto k = split_heads(torch::randn({3, 9, 24}), 4);
  auto v = split_heads(torch::randn({3, 9, 24}), 4);
  auto score = batched_matmul(q, k.transpose(2, 3));
  auto expected = torch::matmul(q.to(torch::kDouble), k.to(torch::kDouble).transpose(2, 3));
  EXPECT_TRUE(test::tensors_close(score, expected, 1e-5, 1e-5));
  auto out = batched_matmul(score.softmax(-1), v);
  auto expected_out = torch::matmul(expected.softmax(-1), v.to(torch::kDouble));
  EXPECT_TRUE(test::tensors_close(out, expected_out, 1e-5, 1e-5));
  auto contiguous = batched_matmul(q.contiguous(), k.transpose(2, 3).contiguous());
  EXPECT_TRUE(test::tensors_close(contiguous, expected, 1e-5, 1e-5));
}

TEST(BatchedMatmul, GradientsMatchMatmul) {
  torch::manual_seed(6);
  auto a = torch::randn({2, 3, 5, 8}).requires_grad_();
  auto b = torch::randn({2, 3, 6, 8}).requires_grad_();
  auto w = torch::randn({2, 3, 5, 6});
  (batched_matmul(a, b.transpose(2, 3)) * w).sum().backward();
  auto a64 = a.detach().to(torch::kDouble).requires_grad_();
  auto b64 = b.detach().to(torch::kDouble).requires_grad_();
  (torch::matmul(a64, b64.transpose(2, 3)) * w.to(torch::kDouble)).sum().backward();
  EXPECT_TRUE(test::tensors_close(a.grad(), a64.grad(), 1e-5, 1e-5));
  EXPECT_TRUE(test::tensors_close(b.grad(), b64.grad(), 1e-5, 1e-5));
}

TEST(BatchedMatmul, UsesTheBlasWhenItIsOpenBlas) {
  if (blas_threads() < 0) GTEST_SKIP() << "the BLAS in use is not OpenBLAS";
  EXPECT_TRUE(batched_matmul_uses_blas()) << "OpenBLAS exports cblas_sgemm; the fast path must be live";
}

// Q/K/V chunks of one fused projection (row stride 3 d_model), sizes of 1,
// and a broadcast (stride-0) gradient from sum().
TEST(BatchedMatmul, FusedProjectionViewsSizeOneAndBroadcastGradients) {
  torch::manual_seed(8);
  for (int64_t len : {1, 5}) {
    auto qkv = torch::randn({2, len, 3 * 12}).chunk(3, -1);
    auto q = split_heads(qkv[0], 3).requires_grad_(false).clone().requires_grad_();
    auto k = split_heads(qkv[1], 3);
    auto expected = torch::matmul(split_heads(qkv[0], 3).to(torch::kDouble), k.to(torch::kDouble).transpose(2, 3));
    EXPECT_TRUE(test::tensors_close(batched_matmul(split_heads(qkv[0], 3), k.transpose(2, 3)), expected, 1e-5, 1e-5));
    batched_matmul(q, k.transpose(2, 3)).sum().backward();
    auto q64 = q.detach().to(torch::kDouble).requires_grad_();
    torch::matmul(q64, k.to(torch::kDouble).transpose(2, 3)).sum().backward();
    EXPECT_TRUE(test::tensors_close(q.grad(), q64.grad(), 1e-5, 1e-5)) << "len " << len;
  }
  auto one = batched_matmul(torch::ones({1, 1, 1, 1}) * 2, torch::ones({1, 1, 1, 1}) * 3);
  EXPECT_EQ(one.item<float>(), 6.0f);
}

TEST(BatchedMatmul, Bf16AndAutocastGoThroughMatmul) {
  auto a = torch::randn({1, 2, 3, 4}), b = torch::randn({1, 2, 4, 5});
  EXPECT_EQ(batched_matmul(a.to(torch::kBFloat16), b.to(torch::kBFloat16)).scalar_type(), torch::kBFloat16);
  PrecisionScope autocast(Precision::kBf16, torch::kCPU);
  EXPECT_EQ(batched_matmul(a, b).scalar_type(), torch::kBFloat16);
}

TEST(BatchedMatmul, RejectsMismatchedShapes) {
  EXPECT_THROW(batched_matmul(torch::randn({1, 2, 3, 4}), torch::randn({1, 2, 5, 6})), c10::Error);
}

}  // namespace
}  // namespace nmt::kernels
