// The GNMT length penalty, which keeps beam search from preferring short
// outputs (every token adds a negative log-probability).
#pragma once

#include <cstdint>

namespace nmt::decode {

// ((5 + length) / 6)^alpha; 1 when alpha is 0. `length` counts the output
// tokens including the final eos, as fairseq and Marian count them.
double length_penalty(int64_t length, double alpha);

// A hypothesis' reported score: its summed log-probability divided by the penalty.
double normalized_score(double log_prob, int64_t length, double alpha);

}  // namespace nmt::decode
