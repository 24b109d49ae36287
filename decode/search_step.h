// Steps shared by greedy and beam search: which tokens a row may produce next,
// growing prefixes, and the hypothesis a finished prefix becomes.
#pragma once

#include <utility>
#include <vector>

#include <torch/types.h>

#include "decode/hypothesis.h"
#include "decode/search_options.h"

namespace nmt::decode {

// In place on log_probs [rows, vocab]: pad and bos are never generated, and
// rows flagged in force_eos (their output reached its length limit) may only
// produce eos, which keeps its own log-probability.
void restrict_next_tokens(torch::Tensor& log_probs, const SearchIds& ids, const std::vector<bool>& force_eos);

// A search's prefixes (int64 on the CPU, bos first), grown by a column a
// step in a buffer with room to spare: a step that keeps every row in order
// (greedy search until a sentence ends) writes its tokens in place, where a
// new tensor of the kept rows and the tokens took five operators and a copy
// of every prefix at each step.
class GrowingPrefixes {
 public:
  GrowingPrefixes(int64_t rows, int64_t bos);
  // [rows, t + 1]: a view of the buffer, valid until the next extend().
  const torch::Tensor& tensor() const { return view_; }
  // The rows listed in `keep`, in that order, each extended by the matching
  // token: [keep.size(), t + 2].
  void extend(const std::vector<int64_t>& keep, const std::vector<int64_t>& tokens);

 private:
  torch::Tensor buffer_;  // [rows, capacity]
  torch::Tensor view_;    // its first length_ columns
  int64_t length_ = 1;
};

// The hypothesis that ends `prefix` (bos, then the tokens generated before
// eos) with eos, scored with the options' length penalty.
Hypothesis completed(const torch::Tensor& prefix, double log_prob, const SearchOptions& options);

// The k best of log_probs[r][v] + sums[r] (sums undefined: 0) over each
// group of `width` consecutive rows, best first: values [groups, k] float and
// indices [groups, k] into the group's width x vocab values; equal values
// keep the lower index first, and where fewer than k are finite the rest are
// -inf. On the CPU in float the fused pass of kernels/top_k.h, elsewhere
// ATen's sum and topk.
std::pair<torch::Tensor, torch::Tensor> best_candidates(const torch::Tensor& log_probs, const torch::Tensor& sums,
                                                        int64_t width, int64_t k);

// A CPU int64 tensor of `values`.
torch::Tensor index_tensor(const std::vector<int64_t>& values);

}  // namespace nmt::decode
