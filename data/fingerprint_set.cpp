#include "data/fingerprint_set.h"

namespace nmt::data {

bool FingerprintSet::insert(uint64_t h) {
  if (h == 0) h = 1;
  if (2 * (count_ + 1) > table_.size()) grow();
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (table_[i] == h) return false;
    if (table_[i] == 0) {
      table_[i] = h;
      ++count_;
      return true;
    }
  }
}

void FingerprintSet::grow() {
  std::vector<uint64_t> old = std::move(table_);
  table_.assign(old.empty() ? 1024 : 2 * old.size(), 0);
  const size_t mask = table_.size() - 1;
  for (uint64_t h : old) {
    if (h == 0) continue;
    size_t i = h & mask;
    while (table_[i] != 0) i = (i + 1) & mask;
    table_[i] = h;
  }
}

}  // namespace nmt::data
