#include "memory/segment_key.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace nmt::memory {

std::string segment_key(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  icu::UnicodeString normal = U_SUCCESS(status) ? nfc->normalize(in, status) : in;
  if (U_FAILURE(status)) normal = in;
  icu::UnicodeString collapsed;
  bool space = false;
  for (int32_t i = 0; i < normal.length();) {
    const UChar32 c = normal.char32At(i);
    i += U16_LENGTH(c);
    if (u_isUWhiteSpace(c)) {
      space = !collapsed.isEmpty();
      continue;
    }
    if (space) collapsed.append(static_cast<UChar>(' '));
    space = false;
    collapsed.append(c);
  }
  std::string out;
  collapsed.toUTF8String(out);
  return out;
}

}  // namespace nmt::memory
