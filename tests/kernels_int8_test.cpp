// int8 products: the row quantization and dequantization passes
// (kernels/int8_rows.h) against plain ATen computations written here, the
// packed int8 linear against the exact product of its quantized operands and
// against fp32 within the quantization's own error bound, model::Linear
// taking it inside an int8 PrecisionScope (and never with autograd on), and
// what the precision names accept.
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/int8_rows.h"
#include "kernels/packed_linear.h"
#include "model/linear.h"
#include "model/transformer.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"
#include "util/precision.h"

namespace nmt::kernels {
namespace {

#define SKIP_WITHOUT_INT8 \
  if (!PackedLinear::available(torch::kChar)) GTEST_SKIP() << "no oneDNN int8 product in this build"

// The quantization the header promises, in ATen: per row, scale max|x| / 127
// and round(x * (127 / max|x|)) with ties to even, clamped to [-127, 127].
struct Quantized {
  torch::Tensor q, scales;
};
Quantized reference_quantize(const torch::Tensor& x) {
  const auto most = x.abs().amax(1);
  const auto inverse = torch::where(most > 0, 127.0f / most, torch::zeros_like(most));
  return {(x * inverse.unsqueeze(1)).round().clamp(-127, 127).to(torch::kChar), most / 127.0f};
}

Quantized quantize(const torch::Tensor& x) {
  Quantized out{torch::empty(x.sizes(), torch::kChar), torch::empty({x.size(0)})};
  quantize_rows(x.data_ptr<float>(), x.size(0), x.size(1), out.q.data_ptr<int8_t>(), out.scales.data_ptr<float>());
  return out;
}

TEST(Int8Rows, QuantizeMatchesScaledRoundedRowsAtEveryVectorTail) {
  torch::manual_seed(3);
  for (int64_t n : {1, 7, 16, 17, 33, 256, 1000}) {
    auto x = torch::randn({5, n}) * torch::tensor({0.01f, 1.0f, 30.0f, 0.0f, 2.0f}).unsqueeze(1);
    const auto got = quantize(x);
    const auto want = reference_quantize(x);
    EXPECT_TRUE(torch::equal(got.q, want.q)) << "n " << n;
    EXPECT_TRUE(torch::equal(got.scales, want.scales)) << "n " << n;
    EXPECT_EQ(got.scales[3].item<float>(), 0.0f) << "a row of zeros";
    EXPECT_EQ(got.q[3].abs().sum().item<int64_t>(), 0);
  }
}

TEST(Int8Rows, ShiftedRowsAreTheQuantizedBytesPlus128ThenPaddedWithZeros) {
  torch::manual_seed(5);
  for (int64_t n : {1, 7, 16, 17, 33, 128, 1000}) {
    const int64_t padded = (n + 63) / 64 * 64;
    auto x = torch::randn({4, n}) * torch::tensor({0.01f, 1.0f, 0.0f, 30.0f}).unsqueeze(1);
    const auto want = quantize(x);
    std::vector<uint8_t> u(4 * padded, 0x11);
    auto scales = torch::empty({4});
    quantize_rows_shifted(x.data_ptr<float>(), 4, n, padded, u.data(), scales.data_ptr<float>());
    EXPECT_TRUE(torch::equal(scales, want.scales)) << "n " << n;
    const auto q = want.q.accessor<int8_t, 2>();
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t k = 0; k < padded; ++k) {
        const int expected = k < n ? q[r][k] + 128 : 128;
        ASSERT_EQ(u[r * padded + k], expected) << "n " << n << " row " << r << " byte " << k;
      }
    }
  }
}

TEST(Int8Rows, TiesRoundToEvenInVectorsAndTail) {
  // max 127: the scale is 1, so x itself is rounded; 40 values put ties in
  // both the 16-wide part and the tail.
  std::vector<float> row(40);
  for (size_t i = 0; i < row.size(); ++i) row[i] = (static_cast<float>(i) - 20.0f) + 0.5f;
  row[0] = 127.0f;
  const auto x = torch::tensor(row).view({1, 40});
  const auto got = quantize(x);
  for (size_t i = 1; i < row.size(); ++i) {
    EXPECT_EQ(got.q[0][static_cast<int64_t>(i)].item<int>(), static_cast<int>(std::nearbyint(row[i]))) << row[i];
  }
}

TEST(Int8Rows, DequantizeScalesAddsBiasAndRectifies) {
  torch::manual_seed(4);
  for (int64_t n : {5, 16, 37}) {
    const auto sums = torch::randint(-2000000, 2000000, {3, n}, torch::kInt);
    const auto row_scales = torch::rand({3}) * 0.01, col_scales = torch::rand({n}) * 0.01, bias = torch::randn({n});
    const auto exact = sums.to(torch::kDouble) * row_scales.to(torch::kDouble).unsqueeze(1) *
                       col_scales.to(torch::kDouble).unsqueeze(0);
    for (bool with_bias : {false, true}) {
      for (bool relu : {false, true}) {
        auto want = with_bias ? exact + bias.to(torch::kDouble) : exact;
        if (relu) want = want.clamp_min(0);
        auto got = torch::empty({3, n});
        dequantize_rows(sums.data_ptr<int32_t>(), 3, n, row_scales.data_ptr<float>(), col_scales.data_ptr<float>(),
                        with_bias ? bias.data_ptr<float>() : nullptr, relu, got.data_ptr<float>());
        EXPECT_TRUE(test::tensors_close(got, want, 1e-6, 1e-6)) << "n " << n << " bias " << with_bias << " relu " << relu;
      }
    }
  }
}

TEST(PackedLinear, Int8IsTheExactProductOfTheQuantizedOperands) {
  SKIP_WITHOUT_INT8;
  torch::manual_seed(7);
  const auto w = torch::randn({70, 48}) * 0.2, b = torch::randn({70});
  const PackedLinear packed(w, b, torch::kChar);
  const auto qw = reference_quantize(w);
  for (int64_t rows : {1, 4, 33, 128}) {
    const auto x = torch::randn({rows, 48}) * 2;
    const auto qx = reference_quantize(x);
    // int8 products summed in double are exact; then one fp32 rounding each.
    const auto sums = torch::matmul(qx.q.to(torch::kDouble), qw.q.to(torch::kDouble).t());
    const auto exact = sums * qx.scales.to(torch::kDouble).unsqueeze(1) * qw.scales.to(torch::kDouble).unsqueeze(0) +
                       b.to(torch::kDouble);
    const auto got = packed.forward(x);
    ASSERT_EQ(got.scalar_type(), torch::kFloat);
    EXPECT_TRUE(test::tensors_close(got, exact, 1e-5, 1e-5)) << "rows " << rows;
    EXPECT_TRUE(test::tensors_close(packed.forward(x, /*relu=*/true), exact.clamp_min(0), 1e-5, 1e-5)) << rows;
  }
  // A row's output does not depend on the rows beside it (a sentence's
  // translation on its batchmates): each row is quantized alone and the sums
  // are exact.
  const auto batch = torch::randn({9, 48}) * torch::arange(1, 10).unsqueeze(1);
  const auto together = packed.forward(batch);
  for (int64_t r = 0; r < 9; ++r) {
    EXPECT_TRUE(torch::equal(together[r], packed.forward(batch.narrow(0, r, 1))[0])) << "row " << r;
  }
  // Leading dimensions are rows.
  const auto x3 = torch::randn({2, 3, 48});
  EXPECT_TRUE(torch::equal(packed.forward(x3), packed.forward(x3.view({6, 48})).view({2, 3, 70})));
}

TEST(PackedLinear, Int8StaysWithinItsRoundingBoundOfFp32) {
  SKIP_WITHOUT_INT8;
  torch::manual_seed(8);
  const auto w = torch::randn({64, 256}) * 0.05, b = torch::randn({64});
  const PackedLinear packed(w, b, torch::kChar);
  const auto x = torch::randn({8, 256});
  const auto fp32 = torch::linear(x.to(torch::kDouble), w.to(torch::kDouble), b.to(torch::kDouble));
  // Each operand is off by at most half its scale: |xw - x'w'| <= sum_k |x_k| sw / 2 + |w'_k| sx / 2.
  const auto sx = reference_quantize(x).scales.to(torch::kDouble), sw = reference_quantize(w).scales.to(torch::kDouble);
  const auto w_abs = w.abs().to(torch::kDouble) + sw.unsqueeze(1) / 2;
  const auto bound = torch::matmul(x.abs().to(torch::kDouble), torch::ones({256, 1}, torch::kDouble)) * sw / 2 +
                     sx.unsqueeze(1) / 2 * w_abs.sum(1).unsqueeze(0);
  const auto err = (packed.forward(x).to(torch::kDouble) - fp32).abs();
  EXPECT_TRUE((err <= bound + 1e-5).all().item<bool>()) << "largest error " << err.max().item<double>();
  // And it is not exact: int8 really ran.
  EXPECT_GT(err.max().item<double>(), 1e-4);
}

TEST(Linear, InferenceInsideAnInt8ScopeTakesTheInt8ProductAndTrainingNever) {
  SKIP_WITHOUT_INT8;
  torch::manual_seed(9);
  model::Linear l(32, 24);
  const auto x = torch::randn({5, 32});
  {
    c10::InferenceMode inference;
    PrecisionScope int8(Precision::kInt8, torch::kCPU);
    const PackedLinear expected(l->weight, l->bias, torch::kChar);
    EXPECT_TRUE(torch::equal(l(x), expected.forward(x)));
    EXPECT_FALSE(torch::equal(l(x), torch::linear(x, l->weight, l->bias)));
  }
  EXPECT_FALSE(int8_products_active()) << "the scope restores the thread's setting";
  PrecisionScope int8(Precision::kInt8, torch::kCPU);
  const auto trained = l(x);  // autograd on: the fp32 parameters themselves
  EXPECT_TRUE(trained.requires_grad());
  EXPECT_TRUE(torch::allclose(trained, torch::linear(x, l->weight, l->bias)));
}

// Through a whole (tiny, randomly initialized) model every linear map runs
// in int8: the logits follow fp32's to within a few percent of their spread.
TEST(Precision, Int8ForwardFollowsFp32) {
  SKIP_WITHOUT_INT8;
  torch::manual_seed(10);
  model::Transformer m(test::tiny_model_config());
  m->eval();
  const auto src = torch::randint(4, 40, {3, 9}), trg = torch::randint(4, 40, {3, 7});
  c10::InferenceMode inference;
  const auto fp32 = m(src, trg);
  torch::Tensor int8;
  {
    PrecisionScope scope(Precision::kInt8, torch::kCPU);
    int8 = m(src, trg);
  }
  ASSERT_EQ(int8.scalar_type(), torch::kFloat);
  const double spread = (fp32.max() - fp32.min()).item<double>();
  EXPECT_TRUE(test::tensors_close(int8, fp32, 0.0, 0.03 * spread));
  EXPECT_FALSE(torch::equal(int8, fp32)) << "int8 products ran";
}

TEST(Precision, Int8IsForDecodingOnTheCpu) {
  EXPECT_EQ(choose_precision("int8", torch::kCPU).precision, Precision::kInt8);
  EXPECT_STREQ(precision_name(Precision::kInt8), "int8");
  EXPECT_NE(choose_precision("auto", torch::kCPU).precision, Precision::kInt8) << "training's auto: never int8";
  // A translator's auto: int8 where AVX-512 VNNI runs it (and the build has it), else as training's.
#if defined(__x86_64__)
  EXPECT_EQ(cpu_has_avx512_vnni(), static_cast<bool>(__builtin_cpu_supports("avx512vnni")));
#endif
  const auto decoding = choose_decoding_precision("auto", torch::kCPU, true);
  EXPECT_EQ(decoding.precision, cpu_has_avx512_vnni() ? Precision::kInt8 : choose_precision("auto", torch::kCPU).precision);
  EXPECT_NE(decoding.reason.find("auto"), std::string::npos) << decoding.reason;
  EXPECT_EQ(choose_decoding_precision("auto", torch::kCPU, false).precision, choose_precision("auto", torch::kCPU).precision);
  EXPECT_EQ(choose_decoding_precision("fp32", torch::kCPU, true).precision, Precision::kFp32) << "asked for wins";
  EXPECT_EQ(choose_decoding_precision("auto", torch::Device(torch::kCUDA), true).precision, Precision::kBf16);
  EXPECT_TRUE(test::throws_with<UsageError>([] { choose_precision("int8", torch::Device(torch::kCUDA)); }, {"CPU only"}));
  Config c;
  c.data.train_src = c.data.train_tgt = "x";
  c.train.precision = "int8";
  EXPECT_THROW(c.validate(), UsageError);
}

}  // namespace
}  // namespace nmt::kernels
