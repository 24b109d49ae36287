// kernels::step_product (fp32 products on weights packed in blocks of 64
// outputs) on weights laid out by the test itself, against a plain product
// in double; its own packing against the test's; and PackedLinear taking it
// at every row count: a row's bits do not depend on the batch it came in nor
// on the thread count, with inputs and outputs that are not whole blocks.
#include <algorithm>
#include <iostream>

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/packed_linear.h"
#include "kernels/step_product.h"
#include "kernels/step_team.h"
#include "kernels/vector_isa.h"
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
// rows (1-13), and the larger ones decoding meets, up to a step's most
// (32 sentences of 4 beams).
constexpr int64_t kStepRows = 128;
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
    with_step_team([&] {
      step_product(x.data_ptr<float>(), rows, weights, b.data_ptr<float>(), false, got.back().data_ptr<float>());
    });
    EXPECT_TRUE(torch::equal(got[0], got[1])) << rows << " rows";
    EXPECT_TRUE(torch::equal(got[0], got[2])) << rows << " rows, in a step team";
  }
}

TEST(StepProduct, PacksWeightsInTheLayoutItReads) {
  torch::manual_seed(24);
  for (auto [in, out] : {std::pair<int64_t, int64_t>{40, 100}, {16, 64}, {3, 7}, {128, 1000}}) {
    const auto w = torch::randn({out, in});
    int64_t padded_in = 0;
    const auto expected = packed_layout(w, padded_in);
    const auto packed = pack_fp32_weights(w);
    const auto view = packed_fp32_view(packed, in, out);
    EXPECT_EQ(view.padded_in, padded_in) << in << " -> " << out;
    ASSERT_EQ(packed.numel(), static_cast<int64_t>(expected.size())) << in << " -> " << out;
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), view.data)) << in << " -> " << out;
  }
  EXPECT_TRUE(test::throws_with<c10::Error>(
      [] {
        packed_fp32_view(torch::zeros({2, 16, 32}), 16, 64);
      },
      {"not fp32 product weights", "16 inputs", "64 outputs"}));
}

TEST(StepProduct, TakesAnyRowCountAndNoneAtAll) {
  torch::manual_seed(25);
  const int64_t in = 96, out = 200;
  const auto w = torch::randn({out, in}) * 0.2, b = torch::randn({out});
  const auto packed = pack_fp32_weights(w);
  const auto weights = packed_fp32_view(packed, in, out);
  for (int64_t rows : {129, 255, 256, 257, 1000}) {
    const auto x = torch::randn({rows, in});
    auto got = torch::full({rows, out}, -7.0f);
    step_product(x.data_ptr<float>(), rows, weights, b.data_ptr<float>(), false, got.data_ptr<float>());
    EXPECT_TRUE(test::tensors_close(got, double_product(x, w, b, false), 1e-5, 1e-6 * in)) << rows << " rows";
  }
  std::vector<float> none(1, -7.0f);
  step_product(nullptr, 0, weights, nullptr, false, none.data());
  EXPECT_EQ(none[0], -7.0f);
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { step_product(nullptr, -1, weights, nullptr, false, none.data()); },
                                            {"-1 rows"}));
}

// A row's result is the same bits alone, among a step's rows and among an
// encoder batch's (row tiles of 128), at 1 to 4 threads and in a step team:
// no product of inference in fp32 depends on its batch.
TEST(StepProduct, PackedLinearGivesARowTheSameBitsInAnyBatchOnAnyThreads) {
  if (!PackedLinear::available(torch::kFloat)) GTEST_SKIP() << "built without oneDNN's API: ATen's product runs";
  std::cout << "vector ISA " << isa_name(cpu_vector_isa()) << std::endl;
  torch::manual_seed(22);
  const RestoreThreadSettings restore;
  for (auto [in, out] : {std::pair<int64_t, int64_t>{40, 100}, {256, 768}, {128, 1000}}) {
    const auto w = torch::randn({out, in}) * 0.2, b = torch::randn({out});
    const PackedLinear packed(w, b, torch::kFloat);
    const auto many = torch::randn({700, in});
    at::set_num_threads(1);
    const auto alone = packed.forward(many.narrow(0, 3, 1));
    for (bool relu : {false, true}) {
      for (int threads : {1, 2, 3, 4}) {
        at::set_num_threads(threads);
        const auto all = packed.forward(many, relu);
        for (int64_t rows : kRowCounts) {
          const auto few = packed.forward(many.narrow(0, 3, rows), relu);
          EXPECT_TRUE(torch::equal(few, all.narrow(0, 3, rows)))
              << in << " -> " << out << ", " << rows << " rows, relu " << relu << ", threads " << threads;
          EXPECT_TRUE(test::tensors_close(few, double_product(many.narrow(0, 3, rows), w, b, relu), 1e-5, 1e-6 * in));
        }
        if (!relu) {
          EXPECT_TRUE(torch::equal(alone, all.narrow(0, 3, 1))) << in << " -> " << out << ", " << threads;
        }
      }
      at::set_num_threads(2);
      torch::Tensor teamed = torch::empty({kStepRows, out});
      with_step_team([&] { packed.forward_rows(many.data_ptr<float>(), kStepRows, teamed.data_ptr<float>(), relu); });
      EXPECT_TRUE(torch::equal(teamed, packed.forward(many, relu).narrow(0, 0, kStepRows))) << "in a step team";
    }
  }
}

}  // namespace
}  // namespace nmt::kernels
