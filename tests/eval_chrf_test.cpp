// chrF2 against hand-worked cases and sacreBLEU 2.6.0's own numbers
// (tests/fixtures/sacrebleu/expected.json).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/chrf.h"
#include "tests/test_support.h"

namespace {

using nmt::eval::ChrfStats;
using nmt::eval::compute_chrf;
using nmt::eval::corpus_chrf;

const std::string kChrfFixtureDir = nmt::test::sacrebleu_fixture_dir();

double chrf(const std::string& hyp, const std::string& ref) { return corpus_chrf({hyp}, {ref}); }

ChrfStats stats_of(const std::string& hyp, const std::string& ref) {
  ChrfStats s;
  s.add(hyp, ref);
  return s;
}

TEST(Chrf, HandWorkedScore) {
  // "ab" vs "abc": order 1 P=1 R=2/3, order 2 P=1 R=1/2; the reference trigram
  // has no hypothesis counterpart, so order 3 drops out. avgP=1, avgR=7/12,
  // F2 = 5 * 7/12 / (4 + 7/12) = 35/55.
  EXPECT_NEAR(chrf("ab", "abc"), 100.0 * 35.0 / 55.0, 1e-9);
  EXPECT_DOUBLE_EQ(chrf("the cat", "the cat"), 100.0);
  EXPECT_EQ(chrf("xxxx", "yyyy"), 0.0);
  EXPECT_EQ(chrf("", "the cat"), 0.0);
  EXPECT_EQ(chrf("the cat", ""), 0.0);
}

TEST(Chrf, WhitespaceIsRemovedIncludingUnicodeSpaces) {
  const ChrfStats s = stats_of("the cat", "t h e\tc\xC2\xA0" "at");  // NBSP
  EXPECT_EQ(s.hyp[0], 6);
  EXPECT_EQ(s.ref[0], 6);
  EXPECT_EQ(s.match[5], 1);
  EXPECT_DOUBLE_EQ(compute_chrf(s), 100.0);
}

TEST(Chrf, CountsCodePointsNotBytes) {
  const ChrfStats s = stats_of("caf\xC3\xA9", "cafe");  // "café": 4 code points, 5 bytes
  EXPECT_EQ(s.hyp[0], 4);
  EXPECT_EQ(s.match[0], 3);
  EXPECT_EQ(s.hyp[3], 1);
  EXPECT_EQ(s.match[3], 0);
}

TEST(Chrf, HypothesisCountIsZeroWhereReferenceHasNoNgrams) {
  // sacreBLEU records the hypothesis count as 0 at orders the reference lacks.
  const ChrfStats s = stats_of("abcdefgh", "ab");
  EXPECT_EQ(s.ref[1], 1);
  EXPECT_EQ(s.hyp[1], 7);
  EXPECT_EQ(s.ref[2], 0);
  EXPECT_EQ(s.hyp[2], 0);
}

TEST(Chrf, CorpusSumsStatisticsAndStreamsLikeBatch) {
  const std::vector<std::string> hyps = {"the cat sat", "", "on the mat", "a"};
  const std::vector<std::string> refs = {"the cat sat down", "nothing", "on a mat", "abc"};
  ChrfStats whole, first, second;
  for (std::size_t i = 0; i < hyps.size(); ++i) whole.add(hyps[i], refs[i]);
  for (std::size_t i = 0; i < 2; ++i) first.add(hyps[i], refs[i]);
  for (std::size_t i = 2; i < hyps.size(); ++i) second.add(hyps[i], refs[i]);
  first.merge(second);
  EXPECT_EQ(first.hyp, whole.hyp);
  EXPECT_EQ(first.ref, whole.ref);
  EXPECT_EQ(first.match, whole.match);
  EXPECT_EQ(compute_chrf(whole), corpus_chrf(hyps, refs));
  // Corpus chrF is not the mean of sentence scores.
  double mean = 0;
  for (std::size_t i = 0; i < hyps.size(); ++i) mean += chrf(hyps[i], refs[i]) / hyps.size();
  EXPECT_GT(std::abs(mean - compute_chrf(whole)), 1.0);
}

TEST(Chrf, MatchesSacrebleuFixture) {
  ASSERT_TRUE(std::filesystem::exists(kChrfFixtureDir + "/expected.json")) << "sacreBLEU fixture not found at " << kChrfFixtureDir;
  std::ifstream in(kChrfFixtureDir + "/expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  const auto refs = nmt::test::read_lines_like_sacrebleu(kChrfFixtureDir + "/" + expected["ref"].get<std::string>());
  ASSERT_FALSE(expected["cases"].empty());
  for (const auto& c : expected["cases"]) {
    const std::string name = c["hyp"].get<std::string>();
    SCOPED_TRACE(name);
    const auto hyps = nmt::test::read_lines_like_sacrebleu(kChrfFixtureDir + "/" + name);
    ASSERT_EQ(hyps.size(), refs.size());
    EXPECT_NEAR(corpus_chrf(hyps, refs), c["chrf2"].get<double>(), 5e-5 + 1e-9);
  }
}

}  // namespace
