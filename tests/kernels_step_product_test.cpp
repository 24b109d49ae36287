// kernels::step_product (fp32 products of up to kStepRows rows on
// oneDNN's packed weight layout) on weights laid out by the test itself,
// against a plain product in double; and PackedLinear taking it for up to
// kStepRows rows: bit for bit the outputs of oneDNN's own product of the same
// rows among more (a row's result does not depend on the batch it came in),
// with inputs and outputs that are not whole blocks.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/packed_linear.h"
#include "kernels/step_product.h"
#include "kernels/step_team.h"
#include "tests/test_support.h"
#include "util/threads.h"

namespace nmt::kernels {
namespace {

// weight [out, in] in the packed layout: block b of 64 outputs holds, input
// by input, that input's weights of the block's outputs; inputs padded to a
// multiple of 16 and the last block's missing outputs with zeros.
std::vector<float> packed_layout(const torch::Tensor& weight, int64_t& padded_in) {
  const int64_t out = weight.size(0), in = weight.size(1), block = PackedFp32Weights::kBlock;
  padded_in = (in + 15) / 16 * 16;
  const int64_t blocks = (out + block - 1) / block;
  std::vector<float> packed(static_cast<size_t>(blocks * padded_in * block), 0.0f);
  const auto w = weight.accessor<float, 2>();
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t k = 0; k < in; ++k) packed[(o / block * padded_in + k) * block + o % block] = w[o][k];
  }
  return packed;
}

// Row counts that take every group size and split of the kernel's groups of
// rows (1-13), and the larger ones decoding meets, up to kStepRows.
const std::vector<int64_t> kRowCounts{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 24, 31, 32, 37, 64, 127, kStepRows};

torch::Tensor double_product(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b, bool relu) {
  auto y = torch::matmul(x.to(torch::kDouble), w.to(torch::kDouble).t());
  if (b.defined()) y += b.to(torch::kDouble);
  return relu ? torch::relu(y) : y;
}

TEST(StepProduct, MatchesThePlainProductOnItsLayout) {
  torch::manual_seed(21);
  for (auto [in, out] : {std::pair<int64_t, int64_t>{40, 100}, {256, 192}, {16, 64}, {3, 7}}) {
    const auto w = torch::randn({out, in}) * 0.2, b = torch::randn({out});
    int64_t padded_in = 0;
    const auto packed = packed_layout(w, padded_in);
    const PackedFp32Weights weights{packed.data(), in, out, padded_in};
    const RestoreThreadSettings restore;
    for (int threads : {1, 2}) {
      at::set_num_threads(threads);
      for (int64_t rows : kRowCounts) {
        for (bool relu : {false, true}) {
          for (bool with_bias : {false, true}) {
            const auto x = torch::randn({rows, in});
            auto got = torch::full({rows, out}, -7.0f);
            step_product(x.data_ptr<float>(), rows, weights, with_bias ? b.data_ptr<float>() : nullptr, relu,
                         got.data_ptr<float>());
            // fp32 sums of `in` terms of size ~0.2.
            EXPECT_TRUE(
                test::tensors_close(got, double_product(x, w, with_bias ? b : torch::Tensor(), relu), 1e-5, 1e-6 * in))
                << in << " -> " << out << ", " << rows << " rows, relu " << relu << ", bias " << with_bias
                << ", threads " << threads;
          }
        }
      }
    }
  }
}

// Every block may go to its own thread, even at one row (step_product):
// each output's sum does not depend on how the blocks were split, nor on
// which thread of a step team took them.
TEST(StepProduct, GivesTheSameBitsOnOneThreadAndOnTwo) {
  torch::manual_seed(23);
  const int64_t in = 128, out = 1000;  // the sample model's output projection: 16 blocks
  const auto w = torch::randn({out, in}) * 0.2, b = torch::randn({out});
  int64_t padded_in = 0;
  const auto packed = packed_layout(w, padded_in);
  const PackedFp32Weights weights{packed.data(), in, out, padded_in};
  const RestoreThreadSettings restore;
  for (int64_t rows : {1, 4, 32}) {
    const auto x = torch::randn({rows, in});
    std::vector<torch::Tensor> got;
    for (int threads : {1, 2}) {
      at::set_num_threads(threads);
      got.push_back(torch::empty({rows, out}));
      step_product(x.data_ptr<float>(), rows, weights, b.data_ptr<float>(), false, got.back().data_ptr<float>());
    }
    // Two threads in a step team (kernels/step_team.h), as a fused step runs.
    got.push_back(torch::empty({rows, out}));
    with_step_team(
        [&] { step_product(x.data_ptr<float>(), rows, weights, b.data_ptr<float>(), false, got.back().data_ptr<float>()); });
    EXPECT_TRUE(torch::equal(got[0], got[1])) << rows << " rows";
    EXPECT_TRUE(torch::equal(got[0], got[2])) << rows << " rows, in a step team";
  }
}

TEST(StepProduct, RefusesOtherRowCounts) {
  const std::vector<float> packed(64 * 16, 0.0f);
  const PackedFp32Weights weights{packed.data(), 16, 64, 16};
  std::vector<float> x(16 * 129), out(64 * 129);
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { step_product(x.data(), 0, weights, nullptr, false, out.data()); },
                                            {"1 to 128 rows", "not 0"}));
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { step_product(x.data(), 129, weights, nullptr, false, out.data()); },
                                            {"1 to 128 rows", "not 129"}));
}

TEST(StepProduct, PackedLinearGivesARowTheSameOutputAsAmongMoreRows) {
  if (!PackedLinear::available(torch::kFloat)) GTEST_SKIP() << "no packed oneDNN product here: ATen's product runs";
  torch::manual_seed(22);
  for (auto [in, out] : {std::pair<int64_t, int64_t>{40, 100}, {256, 768}}) {
    const auto w = torch::randn({out, in}) * 0.2, b = torch::randn({out});
    const PackedLinear packed(w, b, torch::kFloat);
    const auto many = torch::randn({kStepRows + 16, in});  // oneDNN's own product
    for (bool relu : {false, true}) {
      const auto all = packed.forward(many, relu);
      for (int64_t rows : kRowCounts) {
        const auto few = packed.forward(many.narrow(0, 3, rows), relu);
        EXPECT_TRUE(torch::equal(few, all.narrow(0, 3, rows)))
            << in << " -> " << out << ", " << rows << " rows, relu " << relu;
        EXPECT_TRUE(test::tensors_close(few, double_product(many.narrow(0, 3, rows), w, b, relu), 1e-5, 1e-6 * in));
      }
    }
  }
}

}  // namespace
}  // namespace nmt::kernels
