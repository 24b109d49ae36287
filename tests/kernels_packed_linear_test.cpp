// kernels::PackedLinear (bf16 and fp32 products on weights oneDNN packed once)
// against an independent computation and against autocast's bf16 linear, for
// the row counts decoding produces; concurrent calls; and model::Linear taking
// it under bf16 autocast without autograd, and in fp32 on one thread.
#include <thread>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/packed_linear.h"
#include "model/linear.h"
#include "tests/test_support.h"
#include "util/precision.h"
#include "util/threads.h"

namespace nmt::kernels {
namespace {

// Built without oneDNN's API (libdnnl-dev), or bf16 on a CPU without
// AVX-512: ATen's product runs instead.
#define SKIP_WITHOUT_PACKED(dtype)                    \
  if (!PackedLinear::available(dtype) || !at::hasMKLDNN()) \
    GTEST_SKIP() << "no packed oneDNN product in " << (dtype) << " here: ATen's product runs"

torch::Tensor bf16(const torch::Tensor& t) { return t.to(torch::kBFloat16); }

// The exact sum of the bf16-rounded operands in double precision, then
// compared with a bound of one bf16 rounding of the result (2^-8 relative)
// plus fp32 accumulation over `in` terms.
void expect_matches_exact_product(const torch::Tensor& got, const torch::Tensor& x, const torch::Tensor& w,
                                  const torch::Tensor& b) {
  auto exact = torch::matmul(bf16(x).to(torch::kDouble), bf16(w).to(torch::kDouble).t());
  if (b.defined()) exact += bf16(b).to(torch::kDouble);
  EXPECT_TRUE(test::tensors_close(got, exact, /*rtol=*/1.0 / 256, /*atol=*/1e-5 * x.size(1)));
}

TEST(PackedLinear, Fp32InputsRoundAsAutocastsCast) {
  SKIP_WITHOUT_PACKED(torch::kBFloat16);
  torch::manual_seed(6);
  const PackedLinear packed(torch::randn({40, 32}), torch::randn({40}), torch::kBFloat16);
  for (int64_t rows : {1, 4, 33}) {
    // Values with bits below bf16's precision: the conversion must round them as ATen's cast does.
    const auto x = torch::randn({rows, 32}) * 3.3;
    EXPECT_TRUE(torch::equal(packed.forward(x), packed.forward(x.to(torch::kBFloat16)))) << "rows " << rows;
  }
}

TEST(PackedLinear, LeadingDimensionsAreRows) {
  SKIP_WITHOUT_PACKED(torch::kFloat);
  torch::manual_seed(5);
  const auto w = torch::randn({24, 16}), b = torch::randn({24});
  const PackedLinear packed(w, b, torch::kFloat);
  const auto x = torch::randn({3, 5, 16});
  const auto got = packed.forward(x);
  ASSERT_EQ(got.sizes(), (std::vector<int64_t>{3, 5, 24}));
  EXPECT_TRUE(torch::equal(got, packed.forward(x.view({15, 16})).view({3, 5, 24})));
  // A strided input is read through a contiguous copy.
  const auto strided = torch::randn({16, 4}).t();
  EXPECT_TRUE(torch::equal(packed.forward(strided), packed.forward(strided.contiguous())));
}

TEST(PackedLinear, MatchesTheExactProductForDecodingRowCounts) {
  SKIP_WITHOUT_PACKED(torch::kBFloat16);
  torch::manual_seed(11);
  const auto w = torch::randn({48, 64}) * 0.2, b = torch::randn({48});
  const PackedLinear with_bias(w, b), without_bias(w, torch::Tensor());
  EXPECT_EQ(with_bias.in_features(), 64);
  EXPECT_EQ(with_bias.out_features(), 48);
  for (int64_t rows : {1, 3, 4, 32, 127, 128, 300}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    const auto x = torch::randn({rows, 64});
    const auto got = with_bias.forward(x);
    ASSERT_EQ(got.scalar_type(), torch::kBFloat16);
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{rows, 48}));
    expect_matches_exact_product(got, x, w, b);
    expect_matches_exact_product(without_bias.forward(x), x, w, torch::Tensor());
  }
  EXPECT_EQ(with_bias.forward(torch::zeros({0, 64})).size(0), 0);
}

TEST(PackedLinear, EqualsAutocastsBf16Linear) {
  SKIP_WITHOUT_PACKED(torch::kBFloat16);
  torch::manual_seed(12);
  const auto w = torch::randn({96, 80}) * 0.1, b = torch::randn({96});
  const PackedLinear packed(w, b);
  for (int64_t rows : {2, 40, 128}) {
    const auto x = torch::randn({rows, 80});
    torch::Tensor expected;
    {
      c10::InferenceMode inference;
      PrecisionScope scope(Precision::kBf16, torch::kCPU);
      expected = torch::linear(x, w, b);
    }
    // The same kernel family sums in the same order; where the bias is added
    // (ATen: a sum post-op on a copy of it) may round differently once.
    EXPECT_TRUE(test::tensors_close(packed.forward(x), expected, 1.0 / 128, 1e-3)) << "rows " << rows;
  }
}

TEST(PackedLinear, ConcurrentCallsWithOtherRowCountsAndThreadCountsAgree) {
  SKIP_WITHOUT_PACKED(torch::kBFloat16);
  torch::manual_seed(13);
  const PackedLinear packed(torch::randn({40, 24}), torch::randn({40}));
  std::vector<torch::Tensor> inputs, expected;
  for (int64_t rows = 1; rows <= 16; ++rows) {
    inputs.push_back(torch::randn({rows * 5, 24}));
    expected.push_back(packed.forward(inputs.back()));
  }
  std::vector<int> mismatches(2, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      at::set_num_threads(1);  // as parallel batches' workers run
      for (int round = 0; round < 20; ++round) {
        for (size_t i = t; i < inputs.size(); i += 2) {
          if (!torch::equal(packed.forward(inputs[i]), expected[i])) ++mismatches[t];
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches[0] + mismatches[1], 0);
}

TEST(PackedLinear, LinearTakesItUnderBf16InferenceAndFollowsUpdates) {
  SKIP_WITHOUT_PACKED(torch::kBFloat16);
  torch::manual_seed(14);
  model::Linear l(32, 24);
  const auto x = torch::randn({2, 5, 32});
  for (int round = 0; round < 2; ++round) {
    {
      c10::InferenceMode inference;
      PrecisionScope scope(Precision::kBf16, torch::kCPU);
      const auto got = l(x);
      ASSERT_EQ(got.sizes(), (std::vector<int64_t>{2, 5, 24}));
      const auto expected = PackedLinear(l->weight, l->bias).forward(x.reshape({10, 32})).view({2, 5, 24});
      EXPECT_TRUE(torch::equal(got, expected)) << "round " << round;
    }
    torch::NoGradGuard no_grad;
    l->weight.mul_(-2).add_(0.125);  // the packed copy is stale now
  }
}

TEST(PackedLinear, Fp32MatchesTheDoubleProduct) {
  SKIP_WITHOUT_PACKED(torch::kFloat);
  torch::manual_seed(15);
  const auto w = torch::randn({48, 64}) * 0.2, b = torch::randn({48});
  const PackedLinear packed(w, b, torch::kFloat);
  for (int64_t rows : {1, 4, 33, 128}) {
    const auto x = torch::randn({rows, 64});
    const auto got = packed.forward(x);
    ASSERT_EQ(got.scalar_type(), torch::kFloat);
    const auto exact = torch::matmul(x.to(torch::kDouble), w.to(torch::kDouble).t()) + b.to(torch::kDouble);
    // fp32 sums of 64 terms of size ~1.
    EXPECT_TRUE(test::tensors_close(got, exact, 1e-5, 1e-5)) << "rows " << rows;
  }
}

TEST(PackedLinear, Fp32LinearTakesItOnAnyThreadsAndFollowsUpdates) {
  SKIP_WITHOUT_PACKED(torch::kFloat);
  torch::manual_seed(16);
  model::Linear l(32, 24);
  const auto x = torch::randn({2, 5, 32});
  const int threads = at::get_num_threads(), blas = blas_threads();
  for (int round = 0; round < 2; ++round) {
    c10::InferenceMode inference;
    const auto expected = PackedLinear(l->weight, l->bias, torch::kFloat).forward(x.reshape({10, 32})).view({2, 5, 24});
    at::set_num_threads(1);  // as parallel batches' workers run
    set_blas_threads(1);
    const auto one_thread = l(x);
    at::set_num_threads(threads);
    if (blas > 0) set_blas_threads(blas);
    EXPECT_TRUE(torch::equal(one_thread, expected)) << "round " << round;
    EXPECT_TRUE(test::tensors_close(one_thread, torch::linear(x, l->weight, l->bias), 1e-5, 1e-5));
    // With OpenBLAS's pool too (training's fp32 plan): still the packed
    // product, whose bits do not depend on the threads.
    set_blas_threads(2);
    at::set_num_threads(2);
    const auto pooled = l(x);
    at::set_num_threads(threads);
    if (blas > 0) set_blas_threads(blas);
    EXPECT_TRUE(torch::equal(pooled, expected)) << "round " << round;
    l->weight.mul_(-2).add_(0.125);  // the packed copy is stale now
  }
}

TEST(PackedLinear, ReluInsideTheProductEqualsReluAfterIt) {
  SKIP_WITHOUT_PACKED(torch::kBFloat16);
  torch::manual_seed(17);
  const auto w = torch::randn({64, 32}), b = torch::randn({64});
  for (auto dtype : {torch::kBFloat16, torch::kFloat}) {
    const PackedLinear packed(w, b, dtype);
    for (int64_t rows : {1, 7, 128}) {
      const auto x = torch::randn({rows, 32});
      const auto fused = packed.forward(x, /*relu=*/true);
      EXPECT_TRUE(torch::equal(fused, torch::relu(packed.forward(x)))) << dtype << " rows " << rows;
      EXPECT_GT((fused == 0).sum().item<int64_t>(), 0);  // some outputs were negative
    }
  }
  // Linear::forward_relu follows autograd as plain relu(linear(x)).
  model::Linear l(32, 64);
  const auto x = torch::randn({3, 32});
  EXPECT_TRUE(torch::equal(l->forward_relu(x), torch::relu(torch::linear(x, l->weight, l->bias))));
  EXPECT_TRUE(l->forward_relu(x).requires_grad());
}

}  // namespace
}  // namespace nmt::kernels
