// Which language a text is written in, by CLD2 (Debian's libcld2: Google's
// Compact Language Detector 2, 83 languages from character 4-grams and
// words), limited to the languages a caller can use (the server's source
// languages). The server's `source: "auto"` and POST /detect use it.
#pragma once

#include <string>
#include <vector>

namespace nmt::text {

struct DetectedLanguage {
  std::string language;     // one of the allowed codes
  double confidence = 0.0;  // 0-100: the share of the text's letters CLD2 gave this language
};

// The allowed languages CLD2 found in `text` (valid UTF-8), best first; at most
// three. Empty when it found none of them: too short, too mixed, or written in
// another language. Codes match by their language part ("pt-BR" takes
// CLD2's "pt"; CLD2's old "iw" is "he"). With `html`, CLD2 skips the markup
// and reads the text between the tags.
std::vector<DetectedLanguage> detect_languages(const std::string& text, const std::vector<std::string>& allowed,
                                               bool html = false);

}  // namespace nmt::text
