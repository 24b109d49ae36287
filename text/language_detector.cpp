#include "text/language_detector.h"

#include <cstdio>  // compact_lang_det.h uses FILE without including it

#include <cld2/public/compact_lang_det.h>

#include <algorithm>
#include <cctype>

namespace nmt::text {
namespace {

// The language part of a code, lower case, with CLD2's and ISO's old codes
// for the same language made one.
std::string language_part(const std::string& code) {
  std::string part = code.substr(0, code.find_first_of("-_"));
  std::transform(part.begin(), part.end(), part.begin(), [](unsigned char c) { return std::tolower(c); });
  if (part == "iw") return "he";
  if (part == "in") return "id";
  if (part == "jw") return "jv";
  return part;
}

}  // namespace

std::vector<DetectedLanguage> detect_languages(const std::string& text, const std::vector<std::string>& allowed,
                                               bool html) {
  CLD2::Language languages[3];
  int percents[3];
  double scores[3];
  int text_bytes = 0, valid_prefix = 0;
  bool reliable = false;
  CLD2::ExtDetectLanguageSummaryCheckUTF8(text.data(), static_cast<int>(text.size()), /*is_plain_text=*/!html,
                                          /*cld_hints=*/nullptr, /*flags=*/0, languages, percents, scores,
                                          /*resultchunkvector=*/nullptr, &text_bytes, &reliable, &valid_prefix);
  std::vector<DetectedLanguage> found;
  for (int k = 0; k < 3; ++k) {
    if (languages[k] == CLD2::UNKNOWN_LANGUAGE || percents[k] <= 0) continue;
    const std::string detected = language_part(CLD2::LanguageCode(languages[k]));
    for (const auto& code : allowed) {
      const bool taken = std::any_of(found.begin(), found.end(), [&](const auto& d) { return d.language == code; });
      if (!taken && language_part(code) == detected) found.push_back({code, static_cast<double>(percents[k])});
    }
  }
  return found;
}

}  // namespace nmt::text
