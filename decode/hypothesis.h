// One search result for one sentence.
#pragma once

#include <cstdint>
#include <vector>

namespace nmt::decode {

struct Hypothesis {
  std::vector<int64_t> tokens;  // target ids, without bos and the final eos
  double log_prob = 0;          // summed log-probability, the final eos included
  double score = 0;             // log_prob / length_penalty(tokens + 1, alpha)
};

}  // namespace nmt::decode
