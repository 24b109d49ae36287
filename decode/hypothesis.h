// One search result for one sentence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt::decode {

struct Hypothesis {
  std::vector<int64_t> tokens;  // target ids, without bos and the final eos
  double log_prob = 0;          // summed log-probability, the final eos included
  double score = 0;             // log_prob / length_penalty(tokens + 1, alpha)
  // Per source position (sos, the ids, eos, padding): the cross-attention
  // mass it received over the steps that made this hypothesis, in the layer
  // the translator checks coverage with (decode/coverage_check.h); empty
  // when not tracked.
  std::vector<float> coverage;
  bool length_limited = false;  // ended only because it reached its maximum length
  // Indices of the sentence's term constraints (SearchBatch::constraints)
  // this hypothesis does not contain: the search found no row meeting them all.
  std::vector<int32_t> unmet_terms;
  // Per unknown token in `tokens`, in order: the source piece written in its
  // place (TranslatorOptions::replace_unknowns, decode/unknown_copies.h);
  // empty when none is replaced.
  std::vector<std::string> unknown_copies;
};

}  // namespace nmt::decode
