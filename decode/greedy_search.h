// Greedy decoding: the most probable token at every step, one row per
// sentence; a sentence leaves the batch (and the scorer's cache) when it
// produces eos or reaches its length limit.
#pragma once

#include <vector>

#include "decode/hypothesis.h"
#include "decode/search_batch.h"
#include "decode/search_options.h"
#include "decode/step_scorer.h"

namespace nmt::decode {

// `scorer` holds one row per sentence; max_lengths[i] is sentence i's output
// limit in tokens, eos included (see max_output_length). `alpha` only affects
// the reported score. Returns one hypothesis per sentence, in order.
std::vector<Hypothesis> greedy_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                      const SearchIds& ids, double alpha);
// The same under options' rules (decode/next_token_rules.h), scored with
// options.length_penalty; sampling draws each token instead of taking the
// most probable. The SearchBatch form adds target prefixes and sample keys.
std::vector<Hypothesis> greedy_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                      const SearchIds& ids, const SearchOptions& options);
std::vector<Hypothesis> greedy_search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                      const SearchOptions& options);

}  // namespace nmt::decode
