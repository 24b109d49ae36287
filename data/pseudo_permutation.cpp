#include "data/pseudo_permutation.h"

#include "util/random.h"

namespace nmt::data {

PseudoPermutation::PseudoPermutation(uint64_t n, uint64_t key) : n_(n) {
  while (half_bits_ < 32 && (uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
  half_mask_ = (uint64_t{1} << half_bits_) - 1;
  uint64_t state = key;
  for (auto& k : round_keys_) k = state = splitmix64(state);
}

uint64_t PseudoPermutation::encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_, right = x & half_mask_;
  for (const uint64_t k : round_keys_) {
    const uint64_t mixed = left ^ (mix64(right ^ k) & half_mask_);
    left = right;
    right = mixed;
  }
  return (left << half_bits_) | right;
}

uint64_t PseudoPermutation::operator()(uint64_t i) const {
  uint64_t x = encrypt(i);
  while (x >= n_) x = encrypt(x);
  return x;
}

}  // namespace nmt::data
