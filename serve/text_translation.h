// Texts as the APIs carry them (a text may hold several lines, each a
// paragraph that the batcher's translator splits into sentences) translated
// through the batcher and put back together: line k of a text's n-th
// hypothesis is the n-th hypothesis of its line k.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decode/checked_translation.h"
#include "decode/translation.h"
#include "serve/batcher.h"

namespace nmt::serve {

// The server's translator options: the command line's, with every line a
// paragraph split into sentences by the rules of `source_language` (the
// pieces of long ones dressed for `target_language`, decode/line_plan.h), and no
// --target-prefix (a request's tabs are text).
decode::TranslatorOptions serving_options(decode::TranslatorOptions options, const std::string& source_language,
                                          const std::string& target_language);

// A word of a translation and the source word it attended to most, as
// offsets in UTF-16 code units (JavaScript's string indices) into the
// translation and into the text: what the server's page highlights.
struct WordLink {
  size_t target_begin = 0, target_end = 0, source_begin = 0, source_end = 0;
};

struct TextTranslation {
  std::vector<std::string> hypotheses;  // best first; at least one (empty text: "")
  std::vector<double> scores;           // per hypothesis: the sum of its lines' scores
  std::vector<WordLink> alignment;      // of the best hypothesis, when asked for
  decode::CoverageTally coverage;       // what the coverage check found in the text's pieces
  std::vector<decode::UnmetTerm> unmet_terms;  // glossary terms the best hypothesis lacks
};

struct RequestLimits {
  int64_t max_chars = 100000;    // Unicode characters in all texts of a request
  int64_t max_sentences = 1000;  // lines in all texts of a request
  // HttpError 400 naming the limit when `texts` exceed one; also for invalid
  // UTF-8. Lines are not counted for HTML, whose line breaks are markup's.
  void check(const std::vector<std::string>& texts, bool count_lines = true) const;
};

// The lines of a text: split at '\n', a trailing '\r' dropped from each.
std::vector<std::string> split_lines(const std::string& text);

// The widest beam a request may ask for (search costs grow with it).
constexpr int64_t kMaxRequestBeam = 16;

// What a request may ask of the search beside the texts (OpenNMT-py's API).
struct DecodingRequest {
  std::optional<decode::SearchOptions> search;  // none: the server's options
  std::vector<std::string> target_prefixes;     // empty, or one per text ("" for none): its translation starts so
  std::optional<text::PlaceholderOptions> placeholders;  // none: the server's (text/placeholders.h)
  std::shared_ptr<const memory::Glossary> glossary;      // null: the translator's own (--glossary)
};

// With `align`, each text's best translation is aligned word by word to the
// text (decode/line_alignment.h; one more pass of the model per sentence, on
// the batcher's worker). A text's target prefix leads the translation of its
// first sentence.
std::vector<TextTranslation> translate_texts(Batcher& batcher, const std::vector<std::string>& texts,
                                             bool align = false, const DecodingRequest& decoding = {});

// Texts that are HTML (LibreTranslate's format "html"), each a fragment or a
// page, translated with their markup kept (decode/html_translation.h): the
// pieces in the batcher's rounds, the alignment passes on its worker. One
// hypothesis each.
// `placeholders`: what is kept verbatim (text/placeholders.h).
// `glossary`: the terms to meet (null: the translator's own).
std::vector<TextTranslation> translate_html_texts(Batcher& batcher, const std::vector<std::string>& texts,
                                                  const text::PlaceholderOptions& placeholders,
                                                  std::shared_ptr<const memory::Glossary> glossary = nullptr);

}  // namespace nmt::serve
