// BLEU and the 13a tokenizer against hand-worked cases and sacreBLEU 2.6.0's
// own numbers (tests/fixtures/sacrebleu/expected.json).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/bleu.h"
#include "eval/tokenizer_13a.h"
#include "tests/test_support.h"

namespace {

using nmt::eval::BleuResult;
using nmt::eval::BleuStats;
using nmt::eval::compute_bleu;
using nmt::eval::corpus_bleu;
using nmt::eval::sentence_bleu;
using nmt::eval::tokenize_13a;

// expected.json rounds scores to 4 decimals.
constexpr double kScoreTol = 5e-5 + 1e-9;

const std::string kFixtureDir = nmt::test::sacrebleu_fixture_dir();

TEST(Tokenizer13a, SplitsPunctuationButKeepsApostrophesAndHyphens) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("It's a well-known fact."), "It's a well-known fact .");
  EXPECT_EQ(tokenize_13a("(a) [b] {c} $5 #1 @x a/b \"q\""),
            "( a ) [ b ] { c } $ 5 # 1 @ x a / b \" q \"");
}

TEST(Tokenizer13a, NumbersKeepInnerPeriodsAndCommasButSplitDashAfterDigit) {
  EXPECT_EQ(tokenize_13a("3.5-4 km, 1,000 \"quoted\" (x)"),
            "3.5 - 4 km , 1,000 \" quoted \" ( x )");
  EXPECT_EQ(tokenize_13a("pay $1,000.50 now."), "pay $ 1,000.50 now .");
  EXPECT_EQ(tokenize_13a("2-3 a-b"), "2 - 3 a-b");
  // A period with a non-digit on its left is split even before a digit.
  EXPECT_EQ(tokenize_13a(".5"), ". 5");
  EXPECT_EQ(tokenize_13a("U.S.A."), "U . S . A .");
}

TEST(Tokenizer13a, RegexPassesDoNotOverlapMatches) {
  // Python's re.sub consumes "a," so the second comma has no non-digit left
  // neighbour of its own, and it is followed by a digit: it stays attached.
  EXPECT_EQ(tokenize_13a("a,,1"), "a , ,1");
  EXPECT_EQ(tokenize_13a("wait..."), "wait . . .");
}

TEST(Tokenizer13a, UnescapesEntitiesInOrderAndHandlesMarkup) {
  EXPECT_EQ(tokenize_13a("&quot;a&quot; &amp; b &lt;c&gt;"), "\" a \" & b < c >");
  // &amp; is unescaped after &quot;, so the result is not unescaped again.
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");
  EXPECT_EQ(tokenize_13a("<skipped>word"), "word");
  EXPECT_EQ(tokenize_13a("hyph-\nenated next\nline"), "hyphenated next line");
}

TEST(Tokenizer13a, CollapsesUnicodeWhitespaceAndLeavesOtherCharactersWhole) {
  EXPECT_EQ(tokenize_13a("  a \t b\xC2\xA0" "c\xE3\x80\x80" "d  "), "a b c d");  // NBSP, U+3000
  EXPECT_EQ(tokenize_13a("caf\xC3\xA9."), "caf\xC3\xA9 .");
  EXPECT_EQ(tokenize_13a(""), "");
  EXPECT_EQ(tokenize_13a("   "), "");
}

TEST(Bleu, HandWorkedCorpusScore) {
  // Precisions 5/6, 3/5, 2/4, 1/3, equal lengths: BLEU = (1/12)^(1/4).
  const BleuResult r = corpus_bleu({"the cat sat on the mat"}, {"the cat sat on a mat"});
  EXPECT_EQ(r.counts, (std::array<int64_t, 4>{5, 3, 2, 1}));
  EXPECT_EQ(r.totals, (std::array<int64_t, 4>{6, 5, 4, 3}));
  EXPECT_DOUBLE_EQ(r.bp, 1.0);
  EXPECT_NEAR(r.score, 100.0 * std::pow(1.0 / 12.0, 0.25), 1e-9);
  EXPECT_NEAR(r.precisions[0], 100.0 * 5.0 / 6.0, 1e-9);
}

TEST(Bleu, ExpSmoothingAndEffectiveOrderForSentences) {
  // 1-grams 2/3, 2-grams 1/2, 3-grams 0/1 -> smoothed to 100/(2*1) = 50,
  // no 4-grams: sentence BLEU averages 3 orders.
  EXPECT_NEAR(sentence_bleu("a b c", "a b d"), std::cbrt(200.0 / 3.0 * 50.0 * 50.0), 1e-9);
  // Corpus BLEU keeps order 4, whose precision 0 drives the score to 0.
  EXPECT_LT(corpus_bleu({"a b c"}, {"a b d"}).score, 1e-6);
}

TEST(Bleu, BrevityPenaltyAndDegenerateInputs) {
  const BleuResult r = corpus_bleu({"a b c d"}, {"a b c d e f g h"});
  EXPECT_NEAR(r.bp, std::exp(1.0 - 8.0 / 4.0), 1e-12);
  EXPECT_NEAR(r.score, 100.0 * r.bp, 1e-9);
  EXPECT_EQ(sentence_bleu("", "a b c"), 0.0);
  EXPECT_EQ(corpus_bleu({""}, {""}).score, 0.0);
  EXPECT_EQ(corpus_bleu({}, {}).score, 0.0);
  EXPECT_EQ(sentence_bleu("x y", "a b"), 0.0);
}

TEST(Bleu, StreamingAccumulationEqualsBatch) {
  const std::vector<std::string> hyps = {"the cat sat", "on the mat .", "", "a dog"};
  const std::vector<std::string> refs = {"the cat sat down", "on the mat.", "nothing", "a dog"};
  BleuStats whole, first, second;
  for (std::size_t i = 0; i < hyps.size(); ++i) whole.add(hyps[i], refs[i]);
  for (std::size_t i = 0; i < 2; ++i) first.add(hyps[i], refs[i]);
  for (std::size_t i = 2; i < hyps.size(); ++i) second.add(hyps[i], refs[i]);
  first.merge(second);
  EXPECT_EQ(first.counts, whole.counts);
  EXPECT_EQ(first.totals, whole.totals);
  EXPECT_EQ(compute_bleu(whole).score, corpus_bleu(hyps, refs).score);
  EXPECT_EQ(compute_bleu(first).score, compute_bleu(whole).score);
}

TEST(Bleu, MatchesSacrebleuFixture) {
  ASSERT_TRUE(std::filesystem::exists(kFixtureDir + "/expected.json")) << "sacreBLEU fixture not found at " << kFixtureDir;
  std::ifstream in(kFixtureDir + "/expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  const auto refs = nmt::test::read_lines_like_sacrebleu(kFixtureDir + "/" + expected["ref"].get<std::string>());
  ASSERT_FALSE(expected["cases"].empty());
  for (const auto& c : expected["cases"]) {
    const std::string name = c["hyp"].get<std::string>();
    SCOPED_TRACE(name);
    const auto hyps = nmt::test::read_lines_like_sacrebleu(kFixtureDir + "/" + name);
    ASSERT_EQ(hyps.size(), refs.size());
    const BleuResult r = corpus_bleu(hyps, refs);
    EXPECT_EQ(r.counts, (c["counts"].get<std::array<int64_t, 4>>()));
    EXPECT_EQ(r.totals, (c["totals"].get<std::array<int64_t, 4>>()));
    EXPECT_EQ(r.sys_len, c["sys_len"].get<int64_t>());
    EXPECT_EQ(r.ref_len, c["ref_len"].get<int64_t>());
    EXPECT_NEAR(r.bp, c["bp"].get<double>(), 5e-7 + 1e-12);
    EXPECT_NEAR(r.score, c["bleu"].get<double>(), kScoreTol);
    const auto sentences = c["sentence_bleu_first10"].get<std::vector<double>>();
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      EXPECT_NEAR(sentence_bleu(hyps[i], refs[i]), sentences[i], kScoreTol) << "line " << i + 1;
    }
  }
}

}  // namespace
