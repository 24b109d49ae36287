// Per-thread working memory of the kernels: vectors kept between calls and
// grown, never shrunk, to what a call needs.
#pragma once

#include <cstdint>
#include <vector>

namespace nmt::kernels {

// Makes v hold at least n elements (its contents are the caller's to set).
template <class T>
inline void grow_to(std::vector<T>& v, int64_t n) {
  if (static_cast<int64_t>(v.size()) < n) v.resize(static_cast<size_t>(n));
}

}  // namespace nmt::kernels
