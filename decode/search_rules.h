// Rules on what a hypothesis may produce next, beside the length limit
// (decode/search_step.h): a minimum length before eos, no n-gram twice, and a
// penalty on tokens already produced (CTranslate2's and fairseq's
// --min-length, --no-repeat-ngram-size and --repetition-penalty). Both greedy
// and beam search apply them to each step's log-probabilities
// (decode/next_token_rules.h).
#pragma once

#include <vector>

#include <torch/types.h>

#include "decode/search_options.h"

namespace nmt::decode {

// In place on log_probs [rows, vocab] (any device), given each row's prefix
// (prefixes [rows, t + 1] int64 on the CPU, bos first): eos is forbidden to
// rows with fewer than options.min_length tokens, unless the row reached its
// length limit (force_eos: the limit wins); with options.no_repeat_ngram_size
// n > 0, every token that would complete an n-gram already in the row's
// generated tokens is forbidden; with options.repetition_penalty != 1, see
// penalize_repetitions. A row that lost tokens is renormalized (a
// log-probability distribution over what is left, as CTranslate2 forbids
// them before its softmax). Nothing happens when all three are off.
void apply_search_rules(torch::Tensor& log_probs, const torch::Tensor& prefixes, const SearchOptions& options,
                        const SearchIds& ids, const std::vector<bool>& force_eos);

// Rows not flagged in force_eos: the log-probability of every token already
// in the row's generated tokens is multiplied by `penalty`, then the row is
// renormalized (a log-probability distribution again).
void penalize_repetitions(torch::Tensor& log_probs, const torch::Tensor& prefixes, double penalty,
                          const std::vector<bool>& force_eos);

// The tokens that would repeat an n-gram of `tokens` if appended (n >= 1).
std::vector<int64_t> repeating_tokens(const int64_t* tokens, int64_t length, int64_t n);

}  // namespace nmt::decode
