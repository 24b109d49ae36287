// Beam search over a batch of sentences, as fairseq does it: each live
// sentence keeps `beam` rows; of the 2*beam best extensions, an eos among the
// best `beam` completes a hypothesis and the best non-eos ones continue. A
// sentence is done when it has beam x patience completed hypotheses (without
// a length penalty instead: once no live row can enter its n-best, which is
// exact) or reaches its length limit; its rows then leave the batch (and the scorer's cache), and
// the batch ends when every sentence is done.
//
// Ranking during the search uses summed log-probabilities; completed
// hypotheses are ranked by that sum divided by the GNMT length penalty.
// With beam 1 this is exactly greedy decoding.
#pragma once

#include <vector>

#include "decode/hypothesis.h"
#include "decode/search_batch.h"
#include "decode/search_options.h"
#include "decode/step_scorer.h"

namespace nmt::decode {

// `scorer` holds one row per sentence (rows are expanded into beams here);
// max_lengths[i] is sentence i's output limit in tokens, eos included.
// Returns, per sentence in order, up to options.nbest distinct hypotheses,
// best score first, under options' rules (decode/next_token_rules.h). The
// SearchBatch form adds target prefixes and sample keys.
std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                                 const SearchIds& ids, const SearchOptions& options);
std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                                 const SearchOptions& options);

// Greedy when options.beam is 1 (one hypothesis each), beam search otherwise.
std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                            const SearchIds& ids, const SearchOptions& options);
std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                            const SearchOptions& options);

}  // namespace nmt::decode
