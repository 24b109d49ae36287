#include "eval/lowercase.h"

#include <unicode/locid.h>
#include <unicode/unistr.h>

namespace nmt::eval {

std::string lowercase(const std::string& utf8) {
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(utf8);
  text.toLower(icu::Locale::getRoot());
  std::string out;
  text.toUTF8String(out);
  return out;
}

}  // namespace nmt::eval
