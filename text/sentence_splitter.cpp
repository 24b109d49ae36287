#include "text/sentence_splitter.h"

#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include "util/error.h"

namespace nmt::text {
namespace {

// A UText over UTF-8 bytes (not copied; ICU's indices are then byte offsets).
class Utf8Text {
 public:
  explicit Utf8Text(std::string_view text) {
    UErrorCode status = U_ZERO_ERROR;
    ut_ = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
    if (U_FAILURE(status)) throw DataError(std::string("ICU cannot read the text: ") + u_errorName(status) + ".");
  }
  ~Utf8Text() { utext_close(ut_); }
  Utf8Text(const Utf8Text&) = delete;
  Utf8Text& operator=(const Utf8Text&) = delete;
  UText* get() { return ut_; }

 private:
  UText* ut_ = nullptr;
};

std::unique_ptr<icu::BreakIterator> clone_with_text(const icu::BreakIterator& prototype, Utf8Text& text) {
  std::unique_ptr<icu::BreakIterator> it(prototype.clone());
  UErrorCode status = U_ZERO_ERROR;
  if (it) it->setText(text.get(), status);
  if (!it || U_FAILURE(status)) throw DataError("ICU cannot iterate over the text.");
  return it;
}

std::unique_ptr<icu::BreakIterator> word_prototype() {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status) || !it) throw DataError(std::string("ICU has no word rules: ") + u_errorName(status) + ".");
  return it;
}

}  // namespace

SentenceSplitter::SentenceSplitter(const std::string& language) {
  // "@ss=standard": ICU's suppressions (abbreviations such as "Mr." or "z.B.")
  // for the languages that have a list; the others ignore it.
  const icu::Locale locale = language.empty() ? icu::Locale::getRoot()
                                              : icu::Locale::createFromName((language + "@ss=standard").c_str());
  UErrorCode status = U_ZERO_ERROR;
  prototype_.reset(icu::BreakIterator::createSentenceInstance(locale, status));
  if (U_FAILURE(status) || !prototype_) {
    throw DataError("ICU has no sentence rules for the language \"" + language + "\" (" + u_errorName(status) + ").");
  }
}

SentenceSplitter::~SentenceSplitter() = default;
SentenceSplitter::SentenceSplitter(SentenceSplitter&&) noexcept = default;
SentenceSplitter& SentenceSplitter::operator=(SentenceSplitter&&) noexcept = default;

std::vector<Span> SentenceSplitter::split(std::string_view paragraph) const {
  std::vector<Span> sentences;
  if (paragraph.empty()) return sentences;
  Utf8Text text(paragraph);
  const auto it = clone_with_text(*prototype_, text);
  int32_t begin = it->first();
  for (int32_t end = it->next(); end != icu::BreakIterator::DONE; begin = end, end = it->next()) {
    const Span sentence = trim_space(paragraph, {static_cast<size_t>(begin), static_cast<size_t>(end)});
    if (!sentence.empty()) sentences.push_back(sentence);
  }
  return sentences;
}

std::vector<size_t> word_boundaries(std::string_view text, Span span) {
  static const std::unique_ptr<icu::BreakIterator> prototype = word_prototype();
  std::vector<size_t> out;
  if (span.size() < 2) return out;
  Utf8Text piece(span.of(text));
  const auto it = clone_with_text(*prototype, piece);
  it->first();
  for (int32_t b = it->next(); b != icu::BreakIterator::DONE; b = it->next()) {
    if (b > 0 && static_cast<size_t>(b) < span.size()) out.push_back(span.begin + static_cast<size_t>(b));
  }
  return out;
}

}  // namespace nmt::text
