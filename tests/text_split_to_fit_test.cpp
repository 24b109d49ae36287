// Cutting a sentence too long for the model: the best boundary first
// (sentence end, clause, whitespace, word), pieces that fit, nothing lost;
// and joining the pieces' translations.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/clause_shape.h"
#include "text/join_pieces.h"
#include "text/sentence_splitter.h"
#include "text/split_to_fit.h"

namespace nmt::text {
namespace {

FitsModel at_most(size_t bytes) {
  return [bytes](std::string_view piece) { return piece.size() <= bytes; };
}

std::vector<std::string> pieces_of(const std::string& text, size_t bytes, const SentenceSplitter* sentences = nullptr) {
  std::vector<std::string> out;
  const Span whole = trim_space(text, {0, text.size()});
  for (const Span& p : split_to_fit(text, whole, at_most(bytes), sentences)) out.emplace_back(p.of(text));
  return out;
}

// The pieces, in order, with only whitespace between them, make the text.
void expect_nothing_lost(const std::string& text, const std::vector<Span>& pieces) {
  size_t last = trim_space(text, {0, text.size()}).begin;
  for (const Span& p : pieces) {
    ASSERT_GE(p.begin, last);
    EXPECT_TRUE(trim_space(text, {last, p.begin}).empty()) << "lost \"" << text.substr(last, p.begin - last) << "\"";
    EXPECT_FALSE(p.empty());
    last = p.end;
  }
  EXPECT_TRUE(trim_space(text, {last, text.size()}).empty());
}

TEST(SplitToFit, ARunOnWithoutPunctuationSplitsBeforeOpenersThenConjunctions) {
  // No punctuation: a space before a word that opens sentences beats one
  // before a conjunction, which beats any other space; each nearest the middle.
  const std::string text = "the cat sleeps on the mat The dog runs and the bird sings in the tree";
  ClauseHints hints;
  hints.opens_sentence = [](std::string_view word) { return word == "The"; };
  hints.conjunctions = coordinating_conjunctions("en");
  std::vector<std::string> out;
  const auto pieces = split_to_fit(text, {0, text.size()}, at_most(40), nullptr, &hints);
  expect_nothing_lost(text, pieces);
  for (const Span& p : pieces) out.emplace_back(p.of(text));
  EXPECT_EQ(out, (std::vector<std::string>{"the cat sleeps on the mat", "The dog runs", "and the bird sings in the tree"}));
  // Without hints the same text is cut at the space nearest the middle.
  const auto plain = split_to_fit(text, {0, text.size()}, at_most(40), nullptr, nullptr);
  EXPECT_EQ(std::string(plain.front().of(text)), "the cat sleeps on the mat The dog");
}

TEST(SplitToFit, ASentenceThatFitsIsOnePiece) {
  EXPECT_EQ(pieces_of("A short one.", 100), (std::vector<std::string>{"A short one."}));
}

TEST(SplitToFit, FiveThousandCharactersWithoutPunctuationSplitAtSpaces) {
  std::string text;
  for (int i = 0; text.size() < 5000; ++i) text += "word" + std::to_string(i % 97) + " ";
  text.pop_back();
  const auto pieces = split_to_fit(text, {0, text.size()}, at_most(300), nullptr);
  EXPECT_GE(pieces.size(), 17u);
  for (const Span& p : pieces) {
    EXPECT_LE(p.size(), 300u);
    EXPECT_GT(p.size(), 75u) << "cuts near the middle give pieces of similar size";
    EXPECT_NE(text[p.end - 1], ' ');
    EXPECT_TRUE(p.end == text.size() || text[p.end] == ' ') << "cut inside a word";
  }
  expect_nothing_lost(text, pieces);
}

TEST(SplitToFit, ClausePunctuationBeatsASpaceNearerTheMiddle) {
  EXPECT_EQ(pieces_of("one two three four, five six seven eight nine ten", 40),
            (std::vector<std::string>{"one two three four,", "five six seven eight nine ten"}));
  EXPECT_EQ(pieces_of("alpha beta gamma delta; epsilon zeta eta theta", 30),
            (std::vector<std::string>{"alpha beta gamma delta;", "epsilon zeta eta theta"}));
  // "3,5" is a number, not a clause: the cut goes to a space.
  const auto numbers = pieces_of("aaaa 3,5 bbbb cccc dddd eeee", 20);
  for (const auto& p : numbers) EXPECT_EQ(p.find("3,"), p.find("3,5"));
}

TEST(SplitToFit, SentenceEndsBeatClausesWhenTheLineHoldsSeveral) {
  const SentenceSplitter en("en");
  EXPECT_EQ(pieces_of("First, a clause here. Then, another one follows, longer.", 40, &en),
            (std::vector<std::string>{"First, a clause here.", "Then, another one follows, longer."}));
}

TEST(SplitToFit, ChineseWithoutPunctuationSplitsAtWords) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "我们明天去公园散步";
  const auto pieces = split_to_fit(text, {0, text.size()}, at_most(120), nullptr);
  EXPECT_GT(pieces.size(), 8u);
  for (const Span& p : pieces) EXPECT_LE(p.size(), 120u);
  std::string joined;
  for (const Span& p : pieces) joined += std::string(p.of(text));
  EXPECT_EQ(joined, text);  // no gaps in a script without spaces
}

TEST(SplitToFit, FullWidthCommaIsAClause) {
  const std::string text = "我们明天去公园散步，你想一起去吗";
  const auto pieces = pieces_of(text, 40);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0], "我们明天去公园散步，");
}

TEST(SplitToFit, OneWordLongerThanTheLimitIsLeftWholeForTokens) {
  const std::string word(500, 'x');
  EXPECT_EQ(pieces_of(word, 100), (std::vector<std::string>{word}));
  const auto mixed = pieces_of("short " + word + " tail", 100);
  EXPECT_EQ(mixed, (std::vector<std::string>{"short", word, "tail"}));
}

TEST(JoinPieces, KeepsTheSourceGapAndAddsOrDropsSpacesByScript) {
  EXPECT_EQ(joint("It rains.", "  ", "We stay."), "  ");
  EXPECT_EQ(joint("It rains.", "", "We stay."), " ");        // Japanese source: no gap
  EXPECT_EQ(joint("雨です。", " ", "家にいます。"), "");       // English source, Japanese target
  EXPECT_EQ(joint("雨です。", "", "家にいます。"), "");
  EXPECT_EQ(joint("雨です。", "", "OK"), "");
  EXPECT_EQ(joint("a", "\t", "b"), "\t");
}

}  // namespace
}  // namespace nmt::text
