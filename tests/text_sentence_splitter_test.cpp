// Sentence boundaries by ICU in three scripts and a language written without
// spaces, abbreviations kept whole, whitespace left between the sentences,
// and word boundaries for text without spaces.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/sentence_splitter.h"

namespace nmt::text {
namespace {

std::vector<std::string> sentences_of(const std::string& language, const std::string& paragraph) {
  std::vector<std::string> out;
  for (const Span& s : SentenceSplitter(language).split(paragraph)) out.emplace_back(s.of(paragraph));
  return out;
}

// What lies between the sentences (and around them) is whitespace only, so
// that the paragraph can be rebuilt from the sentences and the gaps.
void expect_gaps_are_whitespace(const std::string& language, const std::string& paragraph) {
  const auto spans = SentenceSplitter(language).split(paragraph);
  size_t last = 0;
  for (const Span& s : spans) {
    const Span gap{last, s.begin};
    EXPECT_TRUE(trim_space(paragraph, gap).empty()) << "gap before \"" << s.of(paragraph) << "\"";
    EXPECT_EQ(trim_space(paragraph, s), s);
    last = s.end;
  }
  EXPECT_TRUE(trim_space(paragraph, {last, paragraph.size()}).empty());
}

TEST(SentenceSplitter, FiveEnglishSentencesWithAbbreviationsAndSpacing) {
  const std::string p = "  Mr. Smith went to Washington.  He met Mrs. Brown there! Did he like it?\tYes. "
                        "\"It was big,\" he said.  ";
  EXPECT_EQ(sentences_of("en", p),
            (std::vector<std::string>{"Mr. Smith went to Washington.", "He met Mrs. Brown there!", "Did he like it?",
                                      "Yes.", "\"It was big,\" he said."}));
  expect_gaps_are_whitespace("en", p);
}

TEST(SentenceSplitter, GermanRussianAndGreek) {
  EXPECT_EQ(sentences_of("de", "Ein Hund läuft. Zwei Katzen schlafen! Wo ist der Ball?"),
            (std::vector<std::string>{"Ein Hund läuft.", "Zwei Katzen schlafen!", "Wo ist der Ball?"}));
  EXPECT_EQ(sentences_of("ru", "Собака бежит по траве. Кошка спит на диване! Где мяч?"),
            (std::vector<std::string>{"Собака бежит по траве.", "Кошка спит на диване!", "Где мяч?"}));
  // The Greek question mark is U+037E (";" in looks).
  EXPECT_EQ(sentences_of("el", "Ο σκύλος τρέχει. Η γάτα κοιμάται; Ναι."),
            (std::vector<std::string>{"Ο σκύλος τρέχει.", "Η γάτα κοιμάται;", "Ναι."}));
  expect_gaps_are_whitespace("ru", "Собака бежит по траве.   Кошка спит на диване!\tГде мяч?");
}

TEST(SentenceSplitter, ChineseAndJapaneseWithoutSpaces) {
  EXPECT_EQ(sentences_of("zh", "今天天气很好。我们去公园吧！你想去吗？"),
            (std::vector<std::string>{"今天天气很好。", "我们去公园吧！", "你想去吗？"}));
  EXPECT_EQ(sentences_of("ja", "今日は晴れです。明日は雨が降るでしょう。傘を持っていきますか？"),
            (std::vector<std::string>{"今日は晴れです。", "明日は雨が降るでしょう。", "傘を持っていきますか？"}));
}

TEST(SentenceSplitter, BlankAndSingleSentenceParagraphs) {
  EXPECT_TRUE(sentences_of("en", "").empty());
  EXPECT_TRUE(sentences_of("en", " \t  ").empty());
  EXPECT_EQ(sentences_of("en", "no final stop"), (std::vector<std::string>{"no final stop"}));
  EXPECT_EQ(sentences_of("", "One. Two."), (std::vector<std::string>{"One.", "Two."}));  // language-neutral rules
  EXPECT_EQ(sentences_of("xx", "One. Two."), (std::vector<std::string>{"One.", "Two."}));  // unknown: ICU's root
}

TEST(WordBoundaries, FindWordsInTextWithoutSpacesAndStayInside) {
  const std::string text = "xx今天天气很好yy";
  const Span span{2, text.size() - 2};
  const auto bounds = word_boundaries(text, span);
  ASSERT_FALSE(bounds.empty());  // ICU's dictionary finds words in Chinese
  for (size_t b : bounds) {
    EXPECT_GT(b, span.begin);
    EXPECT_LT(b, span.end);
    EXPECT_NE(static_cast<unsigned char>(text[b]) & 0xC0, 0x80) << "a boundary inside a character";
  }
  EXPECT_TRUE(word_boundaries("abcdefgh", {0, 8}).empty());  // one Latin word: none inside
}

TEST(TrimSpace, UnicodeWhitespaceAtBothEnds) {
  const std::string s = "\xE3\x80\x80 a b\xC2\xA0\t";  // ideographic space, NBSP
  EXPECT_EQ(trim_space(s, {0, s.size()}).of(s), "a b");
  EXPECT_TRUE(trim_space(" \t", {0, 2}).empty());
}

}  // namespace
}  // namespace nmt::text
