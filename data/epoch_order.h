// Which pair an epoch draws at each of its positions, a pure function of
// (mix, seed, epoch, position) evaluated in constant memory: the epoch's
// positions are permuted over the corpora's quotas (data/corpus_mix.h), and
// each corpus's k-th draw is pair pi_p(k mod n) of its pass p = k div n, pi_p
// a fresh permutation of its n pairs per pass. Both permutations are
// PseudoPermutations: nothing the size of the corpus is ever held.
#pragma once

#include <cstdint>

#include "data/corpus_mix.h"
#include "data/pseudo_permutation.h"

namespace nmt::data {

class EpochOrder {
 public:
  EpochOrder(const CorpusMix& mix, uint64_t seed, int64_t epoch);
  // Position in [0, mix.draws_per_epoch()).
  PairRef at(uint64_t position) const;

 private:
  const CorpusMix& mix_;
  uint64_t seed_;
  int64_t epoch_;
  PseudoPermutation positions_;
};

}  // namespace nmt::data
