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

}  // namespace nmt::test
