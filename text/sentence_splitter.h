// Sentence boundaries of a paragraph by ICU's BreakIterator for the source
// language (with ICU's list of abbreviations where it has one for the
// language, so that "Mr. Smith" stays one sentence). The command line's
// --split-sentences and the server use it through decode::LinePlanner.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <unicode/uversion.h>

#include "text/span.h"

U_NAMESPACE_BEGIN
class BreakIterator;
U_NAMESPACE_END

namespace nmt::text {

class SentenceSplitter {
 public:
  // `language`: a code such as "de", "ru" or "ja"; "" uses ICU's
  // language-neutral rules. A DataError when ICU has no rules at all.
  explicit SentenceSplitter(const std::string& language);
  ~SentenceSplitter();
  SentenceSplitter(SentenceSplitter&&) noexcept;
  SentenceSplitter& operator=(SentenceSplitter&&) noexcept;

  // The sentences of valid UTF-8 `paragraph` in order, each without the
  // whitespace around it, so that what lies between two of them (and before
  // the first, after the last) is whitespace only. Empty for a blank paragraph.
  // Thread-safe: each call works on its own copy of the iterator.
  std::vector<Span> split(std::string_view paragraph) const;

 private:
  std::unique_ptr<icu::BreakIterator> prototype_;
};

// Boundaries that ICU's word rules put strictly inside `span` of `text`
// (dictionary-based for Chinese, Japanese, Thai and the like), as byte offsets.
std::vector<size_t> word_boundaries(std::string_view text, Span span);

}  // namespace nmt::text
