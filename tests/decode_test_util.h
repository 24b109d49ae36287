// A StepScorer over a fixed table for the search tests: the next token's
// distribution depends on the previous token only (row `prev` of the table
// of probabilities), so the best and the sampled outputs are known by hand.
#pragma once

#include <vector>

#include <torch/torch.h>

#include "decode/step_scorer.h"

namespace nmt::test {

class TableScorer : public decode::StepScorer {
 public:
  // probs[prev][next]; log-probabilities kept in `dtype` (float as the model
  // gives them, double where a test compares sums to 1e-9).
  explicit TableScorer(const std::vector<std::vector<double>>& probs, torch::ScalarType dtype = torch::kFloat) {
    std::vector<double> flat;
    for (const auto& row : probs) flat.insert(flat.end(), row.begin(), row.end());
    table_ = torch::tensor(flat, torch::kDouble).view({static_cast<int64_t>(probs.size()), -1}).log().to(dtype);
  }
  torch::Tensor next_log_probs(const torch::Tensor& prefixes) override {
    return table_.index_select(0, prefixes.select(1, -1));
  }
  void select_rows(const torch::Tensor&) override {}

 private:
  torch::Tensor table_;
};

// The search tests' three-token table (ids: 1 pad, 2 bos, 3 eos, 4 a, 5 b,
// 6 c): bos -> a 0.5, b 0.3, c 0.2; a -> b 0.6, eos 0.3, a 0.05, c 0.05;
// b -> eos 0.7, c 0.2, a 0.1; c -> eos 0.5, a 0.25, b 0.25; from pad and
// eos only eos. Greedy reads "a b"; the rest is worked out by hand in each test.
inline std::vector<std::vector<double>> abc_table() {
  constexpr int64_t kPad = 1, kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6, kVocab = 7;
  const double e = 1e-9;
  std::vector<std::vector<double>> p(kVocab, std::vector<double>(kVocab, e));
  p[kBos][kA] = 0.5, p[kBos][kB] = 0.3, p[kBos][kC] = 0.2;
  p[kA][kB] = 0.6, p[kA][kEos] = 0.3, p[kA][kA] = 0.05, p[kA][kC] = 0.05;
  p[kB][kEos] = 0.7, p[kB][kC] = 0.2, p[kB][kA] = 0.1;
  p[kC][kEos] = 0.5, p[kC][kA] = 0.25, p[kC][kB] = 0.25;
  for (int64_t t : {int64_t{0}, kPad, kEos}) p[t][kEos] = 1.0;
  return p;
}

}  // namespace nmt::test
