#include "text/join_pieces.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

namespace nmt::text {
namespace {

// Characters of scripts that put no spaces between words, and the full-width
// punctuation that goes with them.
bool written_without_spaces(UChar32 c) {
  if (c < 0) return false;
  if ((c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF)) return true;
  UErrorCode status = U_ZERO_ERROR;
  switch (uscript_getScript(c, &status)) {
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_BOPOMOFO:
    case USCRIPT_THAI:
    case USCRIPT_LAO:
    case USCRIPT_KHMER:
    case USCRIPT_MYANMAR:
      return true;
    default:
      return false;
  }
}

UChar32 last_code_point(std::string_view s) {
  int32_t i = static_cast<int32_t>(s.size());
  UChar32 c;
  U8_PREV(reinterpret_cast<const uint8_t*>(s.data()), 0, i, c);
  return c;
}

UChar32 first_code_point(std::string_view s) {
  int32_t i = 0;
  UChar32 c;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), i, static_cast<int32_t>(s.size()), c);
  return c;
}

}  // namespace

std::string joint(std::string_view left, std::string_view source_gap, std::string_view right) {
  if (left.empty() || right.empty()) return std::string(source_gap);
  const UChar32 a = last_code_point(left), b = first_code_point(right);
  const bool line_break = source_gap.find_first_of("\n\r") != std::string_view::npos;
  if (!line_break && written_without_spaces(a) && written_without_spaces(b)) return "";
  if (!source_gap.empty()) return std::string(source_gap);
  if (written_without_spaces(a) || written_without_spaces(b)) return "";
  if ((a >= 0 && u_isUWhiteSpace(a)) || (b >= 0 && u_isUWhiteSpace(b))) return "";
  return " ";
}

}  // namespace nmt::text
