// kernels::top_k_per_group on every vector ISA this CPU runs, against a plain
// reference written here (every sum computed, stably sorted, the first k
// kept), bit for bit: values, indices and the order of ties; with offsets,
// groups of rows, tails, -inf and NaN entries.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/top_k.h"
#include "tests/test_support.h"

namespace nmt::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<VectorIsa> top_k_isas() {
  std::vector<VectorIsa> out;
  for (auto isa : {VectorIsa::kScalar, VectorIsa::kAvx2, VectorIsa::kAvx512}) {
    if (cpu_supports(isa)) out.push_back(isa);
  }
  return out;
}

// Every x[r][v] + offset[r] of each group (float sums), NaN left out, sorted
// by value, equal values by index; padded with (-inf, 0) to k.
TopK plain_top_k(const torch::Tensor& x, const torch::Tensor& offsets, int64_t width, int64_t k) {
  const int64_t rows = x.size(0), columns = x.size(1), groups = rows / width;
  TopK out{torch::full({groups, k}, -kInf), torch::zeros({groups, k}, torch::kLong)};
  const auto xa = x.accessor<float, 2>();
  const auto zeros = torch::zeros({rows});
  const auto oa = (offsets.defined() ? offsets : zeros).accessor<float, 1>();
  for (int64_t g = 0; g < groups; ++g) {
    std::vector<std::pair<float, int64_t>> all;
    for (int64_t w = 0; w < width; ++w) {
      const float off = oa[g * width + w];
      for (int64_t v = 0; v < columns; ++v) {
        const float s = xa[g * width + w][v] + off;
        if (!std::isnan(s) && s > -kInf) all.emplace_back(s, w * columns + v);
      }
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    auto va = out.values.accessor<float, 2>();
    auto ia = out.indices.accessor<int64_t, 2>();
    for (int64_t j = 0; j < k && j < static_cast<int64_t>(all.size()); ++j) {
      va[g][j] = all[j].first;
      ia[g][j] = all[j].second;
    }
  }
  return out;
}

::testing::AssertionResult same(const TopK& got, const TopK& want) {
  if (torch::equal(got.values, want.values) && torch::equal(got.indices, want.indices))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got\n" << got.values << got.indices << "\nwant\n" << want.values
                                       << want.indices;
}

TEST(TopK, EqualsThePlainReferenceForEveryShapeAndIsa) {
  torch::manual_seed(21);
  for (const auto isa : top_k_isas()) {
    SCOPED_TRACE(isa_name(isa));
    for (int64_t columns : {1, 5, 8, 16, 17, 40, 8003}) {
      for (int64_t width : {1, 4}) {
        SCOPED_TRACE(testing::Message() << columns << " columns, width " << width);
        const auto x = torch::randn({3 * width, columns});
        const auto offsets = torch::randn({3 * width}) * 3;
        // k = all of them only where that is small: the sorted list is made for k ~ 2 x beam.
        const int64_t all = width * columns <= 200 ? width * columns : 32;
        for (int64_t k : {int64_t{1}, std::min<int64_t>(8, width * columns), all}) {
          EXPECT_TRUE(same(top_k_per_group(x, offsets, width, k, isa), plain_top_k(x, offsets, width, k)));
          EXPECT_TRUE(same(top_k_per_group(x, {}, width, k, isa), plain_top_k(x, {}, width, k)));
        }
      }
    }
  }
}

TEST(TopK, TiesKeepTheLowerIndexFirst) {
  for (const auto isa : top_k_isas()) {
    SCOPED_TRACE(isa_name(isa));
    // Few distinct values over 4 rows of 50: long runs of equal sums, across rows too.
    const auto x = torch::randint(0, 3, {8, 50}).to(torch::kFloat);
    const auto offsets = torch::tensor({0.0f, 1.0f, 0.0f, -1.0f, 2.0f, 2.0f, 2.0f, 2.0f});
    EXPECT_TRUE(same(top_k_per_group(x, offsets, 4, 30, isa), plain_top_k(x, offsets, 4, 30)));
  }
}

TEST(TopK, ForbiddenAndNaNEntriesAreNeverPicked) {
  for (const auto isa : top_k_isas()) {
    SCOPED_TRACE(isa_name(isa));
    auto x = torch::full({2, 33}, -kInf);
    x[0][3] = 0.5f;
    x[0][32] = std::nanf("");
    x[1][20] = -1.0f;
    x[1][31] = std::nanf("");
    x[1][32] = -0.25f;
    const auto top = top_k_per_group(x, torch::tensor({-1.0f, 0.0f}), 2, 8, isa);
    EXPECT_TRUE(same(top, plain_top_k(x, torch::tensor({-1.0f, 0.0f}), 2, 8)));
    // Three finite values, best first (row 1 starts at index 33), then -inf with index 0.
    EXPECT_EQ(top.indices[0][0].item<int64_t>(), 33 + 32);
    EXPECT_EQ(top.indices[0][1].item<int64_t>(), 3);
    EXPECT_FLOAT_EQ(top.values[0][1].item<float>(), -0.5f);
    EXPECT_EQ(top.indices[0][2].item<int64_t>(), 33 + 20);
    EXPECT_EQ(top.values[0][3].item<float>(), -kInf);
    EXPECT_EQ(top.indices[0][7].item<int64_t>(), 0);
  }
}

TEST(TopK, ManyGroupsOverThreadsEqualOneByOne) {
  torch::manual_seed(22);
  const auto x = torch::randn({128, 8000});
  const auto offsets = torch::randn({128});
  const auto all = top_k_per_group(x, offsets, 4, 8);
  for (int64_t g = 0; g < 32; g += 7) {
    const auto one = top_k_per_group(x.narrow(0, 4 * g, 4).contiguous(), offsets.narrow(0, 4 * g, 4), 4, 8);
    EXPECT_TRUE(torch::equal(all.values[g], one.values[0]));
    EXPECT_TRUE(torch::equal(all.indices[g], one.indices[0]));
  }
  // And ATen's topk of the summed values agrees on the values.
  const auto totals = (x + offsets.unsqueeze(1)).view({32, 4 * 8000});
  EXPECT_TRUE(torch::equal(std::get<0>(totals.topk(8, 1)), all.values));
}

TEST(TopK, RefusesShapesThatDoNotFit) {
  const auto x = torch::zeros({6, 5});
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { top_k_per_group(x, {}, 4, 2); }, {"6 rows", "groups of 4"}));
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { top_k_per_group(x, {}, 2, 11); }, {"k = 11", "1..10"}));
  EXPECT_TRUE(test::throws_with<c10::Error>([&] { top_k_per_group(x, torch::zeros({5}), 3, 2); }, {"5 offsets"}));
}

}  // namespace
}  // namespace nmt::kernels
