// Random sampling, as CTranslate2's --sampling-topk, --sampling-topp and
// --sampling-temperature define it: sampling_topk 1 (the default) is plain
// argmax search; otherwise each step's distribution is scaled by the
// temperature, cut to its k most probable tokens (0: all) and then to the
// smallest set whose probability reaches p, renormalized, and candidates are
// drawn from it instead of taken best first.
//
// Drawing uses the Gumbel-max trick: adding independent standard Gumbel noise
// to log-probabilities and taking the largest is a draw from their
// distribution, and taking the k largest draws k without replacement. Greedy
// search takes one (ancestral sampling); beam search takes its 2 x beam
// candidates that way over the beams' summed scores (so a beam's candidates
// are distinct samples). Each sentence's noise comes from its own stream,
// seeded by its key and the step: the same seed gives the same samples
// whatever the batch, thread count or device.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "decode/search_options.h"

namespace nmt::decode {

// Whether `options` ask for sampling (sampling_topk != 1).
bool sampling_enabled(const SearchOptions& options);

// log_probs [rows, vocab] scaled by options.sampling_temperature, cut to the
// top-k then top-p tokens, renormalized (log-probabilities again). A row with
// no finite entry stays all -inf.
torch::Tensor sampling_distribution(const torch::Tensor& log_probs, const SearchOptions& options);

// The noise stream of a sentence's key at a step.
uint64_t noise_stream(uint64_t key, int64_t step);
// Standard Gumbel noise for `column` of `stream`: a pure function of both.
double gumbel(uint64_t stream, int64_t column);
// scores [rows, columns] (double, on scores' device) plus gumbel(streams[r],
// c) on every finite entry; -inf entries stay -inf.
torch::Tensor add_gumbel_noise(const torch::Tensor& scores, const std::vector<uint64_t>& streams);

// A sentence's sampling key: the user's seed, its source ids and its target
// prefix mixed (identical sentences get identical samples under one seed).
uint64_t sample_key(uint64_t seed, const std::vector<int64_t>& source, const std::vector<int64_t>& target_prefix);

}  // namespace nmt::decode
