// kernels::Int8StepWeights (the VNNI product of a decoding step's int8 rows)
// against exact integer products computed here, at shapes whose inputs and
// outputs are not whole groups or blocks, for every group size of rows, at
// the extremes of int8 (no sum may wrap), in tiles beyond a step's rows; and
// PackedLinear taking it at every row count: a row's bits the same alone and
// among more. Skipped on CPUs without AVX-512 VNNI.
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/int8_step_product.h"
#include "kernels/packed_linear.h"

namespace nmt::kernels {
namespace {

#define SKIP_WITHOUT_VNNI \
  if (!Int8StepWeights::available()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI"

// The kernel's sums of int8 q [rows, in] and w [out, in], through shift_row.
torch::Tensor kernel_sums(const Int8StepWeights& weights, const torch::Tensor& q, int64_t out) {
  const int64_t rows = q.size(0), padded = weights.padded_in();
  std::vector<uint8_t> shifted(static_cast<size_t>(rows * padded), 0);
  for (int64_t r = 0; r < rows; ++r) weights.shift_row(q[r].data_ptr<int8_t>(), shifted.data() + r * padded);
  auto sums = torch::full({rows, out}, -7, torch::kInt);  // every value must be written
  weights.sums(shifted.data(), rows, sums.data_ptr<int32_t>());
  return sums;
}

torch::Tensor exact_sums(const torch::Tensor& q, const torch::Tensor& w) {
  return torch::matmul(q.to(torch::kLong), w.to(torch::kLong).t()).to(torch::kInt);
}

TEST(Int8StepProduct, SumsAreTheExactIntegerProducts) {
  SKIP_WITHOUT_VNNI;
  torch::manual_seed(11);
  for (int64_t in : {1, 5, 8, 13, 48, 130}) {
    for (int64_t out : {1, 15, 64, 70, 200}) {
      const auto w = torch::randint(-127, 128, {out, in}, torch::kChar).contiguous();
      const Int8StepWeights packed(w.data_ptr<int8_t>(), out, in);
      EXPECT_EQ(packed.padded_in() % 8, 0);
      EXPECT_GE(packed.padded_in(), in);
      // Every group size of the kernel's groups of up to 6 rows, and the most it takes.
      for (int64_t rows = 1; rows <= kInt8StepRows; ++rows) {
        const auto q = torch::randint(-127, 128, {rows, in}, torch::kChar).contiguous();
        EXPECT_TRUE(torch::equal(kernel_sums(packed, q, out), exact_sums(q, w)))
            << "in " << in << " out " << out << " rows " << rows;
      }
    }
  }
}

TEST(Int8StepProduct, ExtremeValuesDoNotWrap) {
  SKIP_WITHOUT_VNNI;
  // 2048 inputs of 127 x -127 (and -127 x -127): sums of +-33 million, whose
  // shifted form (q + 128 = 255) would overflow a 16-bit intermediate.
  const int64_t in = 2048, out = 20;
  auto w = torch::full({out, in}, -127, torch::kChar);
  w.narrow(0, 0, 10).fill_(127);
  const Int8StepWeights packed(w.data_ptr<int8_t>(), out, in);
  auto q = torch::full({3, in}, 127, torch::kChar);
  q[1].fill_(-127);
  q[2].fill_(0);
  EXPECT_TRUE(torch::equal(kernel_sums(packed, q, out), exact_sums(q, w)));
}

TEST(Int8StepProduct, TakesAnyRowCountInTiles) {
  SKIP_WITHOUT_VNNI;
  torch::manual_seed(13);
  const int64_t in = 72, out = 130;
  const auto w = torch::randint(-127, 128, {out, in}, torch::kChar).contiguous();
  const Int8StepWeights packed(w.data_ptr<int8_t>(), out, in);
  for (int64_t rows : {9, 127, 128, 129, 300}) {
    const auto q = torch::randint(-127, 128, {rows, in}, torch::kChar).contiguous();
    EXPECT_TRUE(torch::equal(kernel_sums(packed, q, out), exact_sums(q, w))) << rows << " rows";
  }
}

// Every int8 product of a CPU with VNNI runs the kernel, at any row count:
// a row's outputs are the same bits alone and among more, and oneDNN holds
// no copy of the weights.
TEST(Int8StepProduct, PackedLinearGivesARowTheSameBitsAmongMoreRows) {
  SKIP_WITHOUT_VNNI;
  if (!PackedLinear::available(torch::kChar)) GTEST_SKIP() << "no int8 product in this build";
  torch::manual_seed(12);
  for (int64_t in : {48, 130}) {
    const auto w = torch::randn({70, in}) * 0.1, b = torch::randn({70});
    const PackedLinear linear(w, b, torch::kChar);
    EXPECT_EQ(linear.step_kernel_rows(), std::numeric_limits<int64_t>::max());
    const auto x = torch::randn({300, in}) * 3;
    for (bool relu : {false, true}) {
      const auto together = linear.forward(x, relu);
      for (int64_t rows : {1, 2, 5, 8, 9, 31, 128, 129}) {
        EXPECT_TRUE(torch::equal(linear.forward(x.narrow(0, 0, rows), relu), together.narrow(0, 0, rows)))
            << "in " << in << " rows " << rows << " relu " << relu;
      }
    }
  }
}

}  // namespace
}  // namespace nmt::kernels
