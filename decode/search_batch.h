// What a search is asked of each sentence of a batch beside the model's
// scores: its output limit, the tokens its translation must start with, and
// the key of its random stream when sampling, the terms it must contain.
#pragma once

#include <cstdint>
#include <vector>

#include "decode/term_constraints.h"

namespace nmt::decode {

struct SearchBatch {
  // Output limit per sentence in tokens, eos included (max_output_length,
  // raised to fit the sentence's target prefix).
  std::vector<int64_t> max_lengths;
  // Empty, or one per sentence: target ids every hypothesis starts with
  // (--target-prefix); they are part of the returned tokens and scored with
  // the model's own log-probabilities.
  std::vector<std::vector<int64_t>> target_prefixes;
  // Empty, or one per sentence: the seed of the sentence's random stream when
  // sampling (decode/sampling.h). A sentence's samples depend on its key
  // alone, never on what shares its batch.
  std::vector<uint64_t> sample_keys;
  // Empty, or one per sentence: glossary terms its translation must contain
  // (decode/term_constraints.h); beam search only.
  std::vector<TermConstraints> constraints;

  size_t size() const { return max_lengths.size(); }
  // The prefix of sentence s (empty when none was given).
  const std::vector<int64_t>& prefix(size_t s) const;
  // Whether sentence s has terms to meet.
  bool constrained(size_t s) const { return !constraints.empty() && !constraints[s].empty(); }
  // Throws std::invalid_argument when the per-sentence lists disagree in size.
  void check() const;
};

}  // namespace nmt::decode
