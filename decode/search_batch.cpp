#include "decode/search_batch.h"

#include <stdexcept>
#include <string>

namespace nmt::decode {

const std::vector<int64_t>& SearchBatch::prefix(size_t s) const {
  static const std::vector<int64_t> none;
  return target_prefixes.empty() ? none : target_prefixes[s];
}

void SearchBatch::check() const {
  if (!target_prefixes.empty() && target_prefixes.size() != size()) {
    throw std::invalid_argument("A search batch of " + std::to_string(size()) + " sentences was given " +
                                std::to_string(target_prefixes.size()) + " target prefixes.");
  }
  if (!sample_keys.empty() && sample_keys.size() != size()) {
    throw std::invalid_argument("A search batch of " + std::to_string(size()) + " sentences was given " +
                                std::to_string(sample_keys.size()) + " sampling keys.");
  }
  if (!constraints.empty() && constraints.size() != size()) {
    throw std::invalid_argument("A search batch of " + std::to_string(size()) + " sentences was given " +
                                std::to_string(constraints.size()) + " lists of term constraints.");
  }
}

}  // namespace nmt::decode
