// The 64-bit fingerprints of the pairs seen so far, to drop duplicates
// (data.drop_duplicates): open addressing a quarter to a half full, 16 to 32
// bytes per distinct pair (48 while the table grows): the one part of
// encoding whose memory grows with the corpus.
#pragma once

#include <cstdint>
#include <vector>

namespace nmt::data {

class FingerprintSet {
 public:
  // Adds h; false when it was there already.
  bool insert(uint64_t h);
  size_t size() const { return count_; }

 private:
  void grow();

  std::vector<uint64_t> table_;  // 0: an empty slot (a fingerprint of 0 is stored as 1)
  size_t count_ = 0;
};

}  // namespace nmt::data
