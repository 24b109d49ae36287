// Lines planned into pieces and rebuilt, with a real SentencePiece vocabulary
// and a small random model: a paragraph translates exactly as its sentences
// on lines of their own, its spacing kept; a word longer than the model is
// cut by tokens and nothing is dropped.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "decode/line_plan.h"
#include "decode/translation.h"
#include "tests/test_support.h"
#include "tests/vocab_test_util.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace nmt::decode {
namespace {

class LinePlanning : public test::ToyVocabularyTest {
 protected:
  static Translator make(bool split_sentences, int64_t max_len = 24) {
    TranslatorOptions o;
    o.search.beam = o.search.nbest = 2;
    o.batch_size = 3;
    o.split_sentences = split_sentences;
    o.source_language = "de";
    return Translator(test::tiny_model(5, max_len, vocabs_->src->size()), *vocabs_, o);
  }
};

const std::vector<std::string> kSentences = {"Ein Mann sieht dem Hund.", "Ein Kind fährt!", "Wo ist das Haus?",
                                             "Der Hund spielt mit dem Ball.", "Ein Mann geht."};
const std::vector<std::string> kGaps = {"  ", "  ", " ", "\t", " ", " "};  // before, between, after

TEST_F(LinePlanning, AParagraphTranslatesExactlyAsItsSentencesOnLines) {
  std::string paragraph = kGaps[0];
  for (size_t k = 0; k < kSentences.size(); ++k) paragraph += kSentences[k] + kGaps[k + 1];
  auto split = make(true);
  const auto out = split.translate({paragraph, "Ein Haus."});
  const auto lines = make(false).translate(kSentences);

  const LinePlan& plan = out[0].plan;
  EXPECT_EQ(plan.sentences, 5);
  EXPECT_EQ(plan.long_sentences, 0);
  ASSERT_EQ(plan.pieces.size(), 5u);
  EXPECT_EQ(plan.gaps, kGaps);
  ASSERT_EQ(out[0].texts.size(), 2u);
  for (size_t rank = 0; rank < 2; ++rank) {
    std::string body;
    double score = 0;
    for (size_t k = 0; k < kSentences.size(); ++k) {
      EXPECT_EQ(plan.pieces[k], lines[k].plan.pieces.at(0)) << "sentence " << k;
      EXPECT_EQ(out[0].hypotheses[k][rank].tokens, lines[k].hypotheses.at(0).at(rank).tokens) << "sentence " << k;
      const std::string& t = lines[k].texts.at(rank);
      score += lines[k].scores[rank];
      if (t.empty()) continue;  // an empty translation takes no gap
      body += (body.empty() ? "" : kGaps[k]) + t;
    }
    EXPECT_EQ(out[0].texts[rank], kGaps.front() + body + kGaps.back()) << "rank " << rank;
    // Scores are sums of the same steps over differently padded batches: equal to float rounding.
    EXPECT_NEAR(out[0].scores[rank], score, 1e-4);
  }
  EXPECT_EQ(out[1].texts, make(false).translate({"Ein Haus."})[0].texts);
}

TEST_F(LinePlanning, WithoutSplittingALineIsOneSentenceAndLosesItsOuterSpace) {
  const auto plan = make(false).plan("  Ein Mann. Ein Hund.  ");
  EXPECT_EQ(plan.sentences, 1);
  ASSERT_EQ(plan.pieces.size(), 1u);
  EXPECT_EQ(plan.gaps, (std::vector<std::string>{"", ""}));
  const auto ids = vocabs_->src->encode("Ein Mann. Ein Hund.");
  EXPECT_EQ(plan.pieces[0], std::vector<int64_t>(ids.begin(), ids.end()));
}

TEST_F(LinePlanning, BlankAndInvalidLinesHaveNoPieces) {
  auto t = make(true);
  for (const std::string line : {"", "   ", "\t"}) {
    const auto plan = t.plan(line);
    EXPECT_TRUE(plan.pieces.empty());
    EXPECT_EQ(plan.sentences, 0);
    EXPECT_TRUE(t.rebuild(plan, {}).texts.empty());
  }
  const auto bad = t.plan("Ein \xC3\x28 Hund.");
  EXPECT_TRUE(bad.invalid_utf8);
  EXPECT_TRUE(bad.pieces.empty());
}

// A "word" of many tokens: no text boundary inside, so it is cut by
// tokens into nearly equal chunks that together are its encoding.
TEST_F(LinePlanning, AWordLongerThanTheModelIsCutByTokens) {
  auto t = make(true, 12);
  std::string word;  // many subwords, no boundary ICU or whitespace gives
  for (int i = 0; i < 15; ++i) word += "einmannsiehtdemhund";
  const auto plan = t.plan("Ein Hund. " + word + " Ein Mann.");
  EXPECT_EQ(plan.sentences, 1);  // ICU: no sentence starts with a lower-case word
  EXPECT_EQ(plan.long_sentences, 1);
  ASSERT_GT(plan.pieces.size(), 3u);
  const auto ids = vocabs_->src->encode(word);
  std::vector<int64_t> joined;
  size_t smallest = SIZE_MAX, largest = 0;
  for (size_t k = 1; k + 1 < plan.pieces.size(); ++k) {
    joined.insert(joined.end(), plan.pieces[k].begin(), plan.pieces[k].end());
    smallest = std::min(smallest, plan.pieces[k].size());
    largest = std::max(largest, plan.pieces[k].size());
  }
  EXPECT_EQ(joined, std::vector<int64_t>(ids.begin(), ids.end()));
  EXPECT_LE(static_cast<int64_t>(largest), t.max_source_tokens());
  EXPECT_LE(largest - smallest, 1u) << [&] {
    std::string sizes;
    for (const auto& p : plan.pieces) sizes += std::to_string(p.size()) + " ";
    return sizes;
  }();
  const auto out = t.translate({"Ein Hund. " + word + " Ein Mann."});
  EXPECT_EQ(out[0].hypotheses.size(), plan.pieces.size());
}

}  // namespace
}  // namespace nmt::decode
