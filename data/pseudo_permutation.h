// A random-looking permutation of [0, n) evaluated one element at a time
// from a key, in constant memory: the epoch order of a corpus of any size
// without an array of its indices (data/epoch_order.h).
//
// A balanced Feistel network over the smallest 2h-bit domain that holds n
// (at most 4n values) is a bijection of that domain for any round function;
// indices that land outside [0, n) are encrypted again until they fall
// inside ("cycle walking"), which keeps it a bijection of [0, n) and takes
// fewer than 4 rounds of the network on average.
#pragma once

#include <array>
#include <cstdint>

namespace nmt::data {

class PseudoPermutation {
 public:
  PseudoPermutation(uint64_t n, uint64_t key);
  // The image of i, for i < size().
  uint64_t operator()(uint64_t i) const;
  uint64_t size() const { return n_; }

 private:
  static constexpr int kRounds = 6;
  uint64_t encrypt(uint64_t x) const;

  uint64_t n_;
  int half_bits_ = 0;
  uint64_t half_mask_ = 0;
  std::array<uint64_t, kRounds> round_keys_{};
};

}  // namespace nmt::data
