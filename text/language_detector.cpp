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
  if (part == "no") return "nb";  // CLD2's Norwegian is Bokmål
  return part;
}

}  // namespace

std::vector<DetectedLanguage> detect_languages(const std::string& text, const std::vector<std::string>& allowed,
                                               bool html) {
  // CLD2 refuses control characters as well as invalid UTF-8: they become spaces.
  std::string clean = text;
  for (char& c : clean) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f) c = ' ';
  }
  CLD2::Language languages[3] = {CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE};
  int percents[3] = {0, 0, 0};
  double scores[3] = {0, 0, 0};
  int text_bytes = 0, valid_prefix = 0;
  bool reliable = false;
  CLD2::ExtDetectLanguageSummaryCheckUTF8(clean.data(), static_cast<int>(clean.size()), /*is_plain_text=*/!html,
                                          /*cld_hints=*/nullptr, /*flags=*/0, languages, percents, scores,
                                          /*resultchunkvector=*/nullptr, &text_bytes, &reliable, &valid_prefix);
  std::vector<DetectedLanguage> found;
  if (valid_prefix < static_cast<int>(clean.size())) return found;  // not UTF-8: CLD2 filled nothing in
  for (int k = 0; k < 3; ++k) {
    if (languages[k] == CLD2::UNKNOWN_LANGUAGE || percents[k] <= 0) continue;
    const std::string detected = language_part(CLD2::LanguageCode(languages[k]));
    for (const auto& code : allowed) {
      if (language_part(code) != detected) continue;
      const auto same = std::find_if(found.begin(), found.end(), [&](const auto& d) { return d.language == code; });
      if (same != found.end()) {
        same->confidence += percents[k];  // two CLD2 results of one language (zh and zh-Hant)
      } else {
        found.push_back({code, static_cast<double>(percents[k])});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.confidence > b.confidence; });
  if (found.size() > 3) found.resize(3);
  return found;
}

}  // namespace nmt::text
