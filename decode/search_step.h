// Steps shared by greedy and beam search: which tokens a row may produce next,
// growing prefixes, and the hypothesis a finished prefix becomes.
#pragma once

#include <vector>

#include <torch/types.h>

#include "decode/hypothesis.h"
#include "decode/search_options.h"

namespace nmt::decode {

// In place on log_probs [rows, vocab]: pad and bos are never generated, and
// rows flagged in force_eos (their output reached its length limit) may only
// produce eos, which keeps its own log-probability.
void restrict_next_tokens(torch::Tensor& log_probs, const SearchIds& ids, const std::vector<bool>& force_eos);

// The rows of `prefixes` [rows, t] listed in `keep`, each extended by the
// matching token: [keep.size(), t + 1].
torch::Tensor extend_prefixes(const torch::Tensor& prefixes, const std::vector<int64_t>& keep,
                              const std::vector<int64_t>& tokens);

// The hypothesis that ends `prefix` (bos, then the tokens generated before
// eos) with eos, scored with length penalty `alpha`.
Hypothesis completed(const torch::Tensor& prefix, double log_prob, double alpha);

// A CPU int64 tensor of `values`.
torch::Tensor index_tensor(const std::vector<int64_t>& values);

}  // namespace nmt::decode
