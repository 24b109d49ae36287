// The coverage check: the attention mass each source position gets while
// decoding (tracked in the cache, greedy and beam) equals the cross-attention
// of a teacher-forced pass over the hypothesis summed over its steps; words,
// uncovered stretches, ratios and length limits are judged as documented;
// the learned threshold follows its rule; and failing pieces are split and
// translated again in bounded rounds, with what still fails reported.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "decode/checked_translation.h"
#include "decode/coverage_check.h"
#include "decode/line_plan.h"
#include "decode/translation.h"
#include "tests/test_support.h"
#include "tests/vocab_test_util.h"

namespace nmt::decode {
namespace {

TranslatorOptions tracking(int64_t beam) {
  TranslatorOptions o;
  o.search.beam = beam;
  o.search.nbest = beam;
  o.batch_size = 3;
  o.coverage.check = true;
  return o;
}

class CoverageTracking : public ::testing::TestWithParam<int64_t> {};

TEST_P(CoverageTracking, EqualsTeacherForcedCrossAttentionSummedOverSteps) {
  const int64_t beam = GetParam();
  auto model = test::tiny_model(11, 24, 40);
  Translator t(model, SearchIds{2, 3, 1}, 2, 3, tracking(beam));
  const std::vector<std::vector<int64_t>> sources = {{5, 6, 7, 8, 9, 10, 11}, {12, 13}, {14, 15, 16, 17}};
  const auto found = t.translate_ids(sources);
  for (size_t s = 0; s < sources.size(); ++s) {
    ASSERT_EQ(found[s].size(), static_cast<size_t>(beam));
    for (const Hypothesis& h : found[s]) {
      const auto n = static_cast<int64_t>(sources[s].size());
      // Padded to the batch's longest source (7 + sos + eos).
      ASSERT_EQ(h.coverage.size(), 9u);
      const auto expected = t.cross_attention(sources[s], h.tokens, t.coverage_layer()).sum(0);  // [n + 2]
      const auto got = torch::tensor(h.coverage).narrow(0, 0, n + 2);
      EXPECT_TRUE(test::tensors_close(got, expected, 1e-4, 1e-5)) << "source " << s;
      // One unit of mass per step: the target's tokens and the eos.
      EXPECT_NEAR(got.sum().item<double>(), static_cast<double>(h.tokens.size() + 1), 1e-3);
      const int64_t limit = max_output_length(n, t.options().search, 24);
      EXPECT_EQ(h.length_limited, static_cast<int64_t>(h.tokens.size()) + 1 >= limit) << h.tokens.size() << " of " << limit;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GreedyAndBeam, CoverageTracking, ::testing::Values(1, 3));

TEST(CoverageTracking, OffWithoutTheCheck) {
  Translator t(test::tiny_model(11, 24, 40), SearchIds{2, 3, 1}, 2, 3, TranslatorOptions{});
  for (const auto& h : t.translate_ids({{5, 6, 7}}).at(0)) EXPECT_TRUE(h.coverage.empty());
}

TEST(CoverageThreshold, FailingThresholdIsTheLeastLargestMassOfAStretch) {
  const auto words = [](std::vector<double> masses) {
    std::vector<WordMass> w;
    for (double m : masses) w.push_back({0, 1, m});
    return w;
  };
  // Stretches of 3 (max_uncovered_words 2): largest masses 0.9, 0.3, 0.3, 0.8 -> 0.3.
  EXPECT_DOUBLE_EQ(failing_threshold(words({0.9, 0.1, 0.3, 0.2, 0.8}), 2), 0.3);
  EXPECT_DOUBLE_EQ(failing_threshold(words({0.9, 0.1, 0.3, 0.2, 0.8}), 0), 0.1);
  EXPECT_TRUE(std::isinf(failing_threshold(words({0.1, 0.1}), 2)));  // too short to fail
  // 0.8 x the 1/500 quantile, capped at 0.5; infinities ignored.
  std::vector<double> levels(1000, 1.0);
  levels[0] = 0.1, levels[1] = 0.2, levels[2] = 0.4;
  levels.push_back(std::numeric_limits<double>::infinity());
  EXPECT_NEAR(learn_threshold(levels), 0.8 * 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(learn_threshold(std::vector<double>(10, 2.0)), 0.5);
  EXPECT_DOUBLE_EQ(learn_threshold({std::numeric_limits<double>::infinity()}), 0.0);
}

class CoverageCheck : public test::ToyVocabularyTest {
 protected:
  // A German planner that gives the model whole lines (up to 200 tokens).
  static LinePlanner whole_line_planner() {
    return LinePlanner(vocabs_->src, vocabs_->tgt, PieceLimits{200, 0}, false, PlannerLanguages{"de", "de"});
  }
  static std::vector<int64_t> ids(const std::string& text) {
    std::vector<int64_t> out;
    for (int32_t id : vocabs_->src->encode(text)) out.push_back(id);
    return out;
  }
  // A hypothesis of `tokens` target tokens whose coverage gives each source
  // token `mass(j)` (sos and eos get 0.5).
  template <class Mass>
  static Hypothesis hypothesis(size_t n, size_t tokens, const Mass& mass) {
    Hypothesis h;
    h.tokens.assign(tokens, 7);
    h.coverage.push_back(0.5f);
    for (size_t j = 0; j < n; ++j) h.coverage.push_back(static_cast<float>(mass(j)));
    h.coverage.push_back(0.5f);
    return h;
  }
};

TEST_F(CoverageCheck, JudgesWordsStretchesRatiosAndLengthLimits) {
  CoverageOptions o;
  o.threshold = 0.3;
  o.max_uncovered_words = 2;
  o.min_ratio = 0.5;
  o.max_ratio = 2.0;
  const CoverageChecker checker(vocabs_->src, o);
  const auto piece = ids("Ein Mann sieht dem Hund und ein Kind fährt mit dem Ball");
  const auto words =
      checker.word_masses(piece, hypothesis(piece.size(), piece.size(), [](size_t) { return 1.0; }).coverage);
  ASSERT_EQ(words.size(), 12u);  // a word per "▁"
  for (const auto& w : words) EXPECT_DOUBLE_EQ(w.mass, static_cast<double>(w.end - w.begin));

  const auto all = checker.check(piece, hypothesis(piece.size(), piece.size(), [](size_t) { return 1.0; }));
  EXPECT_TRUE(all.checked);
  EXPECT_FALSE(all.failed(o));
  // Words 5..8 ("und ein Kind fährt") unattended: a stretch of 4.
  const auto w = words;
  const auto gap = [&](size_t j) { return static_cast<int64_t>(j) >= w[5].begin && static_cast<int64_t>(j) < w[8].end ? 0.05 : 1.0; };
  const auto dropped = checker.check(piece, hypothesis(piece.size(), piece.size(), gap));
  EXPECT_EQ(dropped.uncovered_words, 4);
  EXPECT_EQ(dropped.uncovered_total, 4);
  EXPECT_EQ(dropped.uncovered_begin, w[5].begin);
  EXPECT_EQ(dropped.uncovered_end, w[8].end);
  EXPECT_TRUE(dropped.failed(o));
  // Two uncovered words are allowed.
  const auto two = [&](size_t j) { return static_cast<int64_t>(j) >= w[5].begin && static_cast<int64_t>(j) < w[6].end ? 0.05 : 1.0; };
  EXPECT_FALSE(checker.check(piece, hypothesis(piece.size(), piece.size(), two)).failed(o));
  // Far too short a translation, all words attended.
  const auto short_one = checker.check(piece, hypothesis(piece.size(), piece.size() / 3, [](size_t) { return 1.0; }));
  EXPECT_TRUE(short_one.ratio_outside);
  EXPECT_TRUE(short_one.failed(o));
  auto limited = hypothesis(piece.size(), piece.size(), [](size_t) { return 1.0; });
  limited.length_limited = true;
  EXPECT_TRUE(checker.check(piece, limited).failed(o));
  // Nothing tracked: nothing judged.
  Hypothesis bare;
  bare.tokens = {7, 7};
  EXPECT_FALSE(checker.check(piece, bare).checked);
  EXPECT_FALSE(checker.check(piece, bare).failed(o));
}

// Threshold 0.3, at most `rounds` rounds.
CoverageOptions rounds_of(int64_t rounds) {
  CoverageOptions o;
  o.threshold = 0.3;
  o.rounds = rounds;
  return o;
}

// A translator whose every piece comes back with the words beyond the first
// `keep` source tokens unattended, as a model that drops the end of long input.
class DroppingTail {
 public:
  explicit DroppingTail(size_t keep) : keep_(keep) {}
  std::vector<std::vector<std::vector<Hypothesis>>> operator()(const std::vector<LinePlan>& plans) {
    ++calls;
    std::vector<std::vector<std::vector<Hypothesis>>> out;
    for (const auto& plan : plans) {
      out.emplace_back();
      for (const auto& piece : plan.pieces) {
        tokens += static_cast<int64_t>(piece.size());
        Hypothesis h;
        h.tokens = piece;
        h.coverage.push_back(0.5f);
        for (size_t j = 0; j < piece.size(); ++j) h.coverage.push_back(j < keep_ ? 1.0f : 0.0f);
        h.coverage.push_back(0.5f);
        out.back().push_back({h});
      }
    }
    return out;
  }
  int64_t calls = 0, tokens = 0;

 private:
  size_t keep_;
};

TEST_F(CoverageCheck, FailingPiecesAreSplitAgainUntilTheyPassWithinTheRounds) {
  const CoverageOptions o = rounds_of(3);
  const CoverageChecker checker(vocabs_->src, o);
  const LinePlanner planner = whole_line_planner();
  const std::string line = "Ein Mann sieht dem Hund mit dem Ball und ein Kind fährt mit dem Haus und der Hund spielt";
  std::vector<LinePlan> plans{planner.plan(line)};
  const auto line_tokens = static_cast<int64_t>(plans[0].pieces.at(0).size());
  DroppingTail translate(6);
  const auto hypotheses = translate_checked(
      plans, [&](const std::vector<LinePlan>& p) { return translate(p); }, planner, checker);
  const LinePlan& plan = plans[0];
  ASSERT_EQ(hypotheses[0].size(), plan.pieces.size());
  ASSERT_EQ(plan.checks.size(), plan.pieces.size());
  EXPECT_GT(plan.pieces.size(), 2u);
  EXPECT_GT(plan.resplit_pieces, 0);
  for (size_t i = 0; i < plan.pieces.size(); ++i) {
    EXPECT_FALSE(plan.checks[i].failed(o)) << "piece " << i;  // at most 2 words beyond the 6 attended tokens
  }
  // The pieces cover the line in order, their gaps between them.
  std::string rebuilt = plan.gaps[0];
  for (size_t i = 0; i < plan.pieces.size(); ++i) rebuilt += std::string(plan.sources[i].span.of(line)) + plan.gaps[i + 1];
  EXPECT_EQ(rebuilt, line);
  EXPECT_LE(translate.calls, 1 + o.rounds);
  EXPECT_LE(translate.tokens, (1 + o.rounds) * line_tokens);  // linear work
  EXPECT_EQ(describe_failures(plan, o, *vocabs_->src), "");
}

TEST_F(CoverageCheck, WhatStillFailsIsReportedWithItsWords) {
  const CoverageOptions o = rounds_of(2);
  const CoverageChecker checker(vocabs_->src, o);
  const LinePlanner planner = whole_line_planner();
  std::vector<LinePlan> plans{planner.plan("Ein Mann sieht dem Hund mit dem Ball"), planner.plan("Ein Kind")};
  DroppingTail translate(0);  // nothing attended at all: splitting cannot help
  translate_checked(plans, [&](const std::vector<LinePlan>& p) { return translate(p); }, planner, checker);
  EXPECT_EQ(plans[0].pieces.size(), 1u);  // the splits failed as much: the piece stays whole
  EXPECT_TRUE(plans[0].checks.at(0).split_tried);
  EXPECT_EQ(describe_failures(plans[0], o, *vocabs_->src),
            "8 source words may be missing from the translation: \"Ein Mann sieht dem Hund mit dem Ball\"");
  EXPECT_EQ(describe_failures(plans[1], o, *vocabs_->src), "");  // two words: not a stretch of more than two
  CoverageTally tally;
  tally.add(plans[0], o);
  tally.add(plans[1], o);
  EXPECT_EQ(tally.uncovered_pieces, 1);
  EXPECT_EQ(tally.checked_pieces, 2);
  EXPECT_EQ(translate.calls, 2);  // the second round had nothing left to try
}

}  // namespace
}  // namespace nmt::decode
