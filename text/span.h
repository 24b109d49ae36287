// A stretch of a UTF-8 string by byte offsets, as the text splitters return it.
#pragma once

#include <cstddef>
#include <string_view>

namespace nmt::text {

struct Span {
  size_t begin = 0, end = 0;  // [begin, end) in bytes
  size_t size() const { return end - begin; }
  bool empty() const { return end == begin; }
  std::string_view of(std::string_view text) const { return text.substr(begin, end - begin); }
  bool operator==(const Span& o) const { return begin == o.begin && end == o.end; }
};

// `span` without the whitespace (Unicode White_Space) at either end of it.
Span trim_space(std::string_view text, Span span);

}  // namespace nmt::text
