// The 64-bit fingerprints of the pairs seen so far, to drop duplicates
// (data.drop_duplicates): open addressing at most half full, 8 to 16 bytes
// per distinct pair.
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
