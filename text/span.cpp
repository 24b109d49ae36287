#include "text/span.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace nmt::text {

Span trim_space(std::string_view text, Span span) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  while (span.begin < span.end) {
    int32_t i = static_cast<int32_t>(span.begin);
    UChar32 c;
    U8_NEXT(s, i, static_cast<int32_t>(span.end), c);
    if (c < 0 || !u_isUWhiteSpace(c)) break;
    span.begin = static_cast<size_t>(i);
  }
  while (span.end > span.begin) {
    int32_t i = static_cast<int32_t>(span.end);
    UChar32 c;
    U8_PREV(s, static_cast<int32_t>(span.begin), i, c);
    if (c < 0 || !u_isUWhiteSpace(c)) break;
    span.end = static_cast<size_t>(i);
  }
  return span;
}

}  // namespace nmt::text
