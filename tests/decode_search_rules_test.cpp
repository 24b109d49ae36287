// --min-length and --no-repeat-ngram-size: the banned tokens against a brute
// force over random sequences, and greedy and beam search (batched) under the
// rules on a scorer that would break them.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "decode/search_rules.h"
#include "tests/decode_test_util.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::decode::rules_test {
namespace {

constexpr int64_t kPad = 1, kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6, kVocab = 7;
const SearchIds kIds{kBos, kEos, kPad};

// Whether some n-gram occurs twice in tokens.
bool has_repeated_ngram(const std::vector<int64_t>& tokens, int64_t n) {
  std::set<std::vector<int64_t>> seen;
  for (size_t i = 0; i + static_cast<size_t>(n) <= tokens.size(); ++i) {
    if (!seen.insert(std::vector<int64_t>(tokens.begin() + static_cast<int64_t>(i),
                                          tokens.begin() + static_cast<int64_t>(i) + n))
             .second) {
      return true;
    }
  }
  return false;
}

TEST(SearchRules, RepeatingTokensEqualABruteForce) {
  Rng rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto length = static_cast<int64_t>(rng.below(12));
    const auto n = static_cast<int64_t>(1 + rng.below(4));
    std::vector<int64_t> tokens;
    for (int64_t i = 0; i < length; ++i) tokens.push_back(kA + static_cast<int64_t>(rng.below(3)));
    if (has_repeated_ngram(tokens, n)) continue;  // a search never reaches such a prefix
    const auto banned = repeating_tokens(tokens.data(), length, n);
    const std::set<int64_t> got(banned.begin(), banned.end());
    std::set<int64_t> expected;
    for (int64_t x : {kA, kB, kC}) {
      auto longer = tokens;
      longer.push_back(x);
      if (has_repeated_ngram(longer, n)) expected.insert(x);
    }
    ASSERT_EQ(got, expected) << "trial " << trial << ", n " << n;
  }
}

// a -> a 0.7 (it loves repeating), b 0.1, c 0.1, eos 0.1; b -> a 0.5, b 0.3, eos 0.2;
// c -> c 0.6, a 0.2, eos 0.2; bos -> eos 0.6, a 0.3, b 0.1: unconstrained, "eos" at once.
std::vector<std::vector<double>> repetitive() {
  const double e = 1e-9;
  std::vector<std::vector<double>> p(kVocab, std::vector<double>(kVocab, e));
  p[kBos][kEos] = 0.6, p[kBos][kA] = 0.3, p[kBos][kB] = 0.1;
  p[kA][kA] = 0.7, p[kA][kB] = 0.1, p[kA][kC] = 0.1, p[kA][kEos] = 0.1;
  p[kB][kA] = 0.5, p[kB][kB] = 0.3, p[kB][kEos] = 0.2;
  p[kC][kC] = 0.6, p[kC][kA] = 0.2, p[kC][kEos] = 0.2;
  for (int64_t t : {int64_t{0}, kPad, kEos}) p[t][kEos] = 1.0;
  return p;
}

std::vector<std::vector<Hypothesis>> run(const SearchOptions& o, const std::vector<int64_t>& limits) {
  test::TableScorer scorer(repetitive());
  return search(scorer, limits, kIds, o);
}

TEST(SearchRules, NoHypothesisRepeatsAnNgramInGreedyOrBeamSearch) {
  for (int64_t beam : {1, 4}) {
    for (int64_t n : {1, 2, 3}) {
      SearchOptions o;
      o.beam = beam;
      o.nbest = beam;
      o.min_length = 4;  // without it every sentence would end at once
      o.no_repeat_ngram_size = n;
      o.length_penalty = 0;
      const auto out = run(o, {12, 12, 12});  // a batch of three
      for (const auto& hyps : out) {
        ASSERT_FALSE(hyps.empty());
        for (const auto& h : hyps) {
          if (!std::isfinite(h.score)) continue;  // n 1 over three tokens runs out of them
          EXPECT_FALSE(has_repeated_ngram(h.tokens, n)) << "beam " << beam << ", n " << n;
        }
      }
      o.no_repeat_ngram_size = 0;
      bool repeats_without = false;
      for (const auto& h : run(o, {12})[0]) repeats_without |= has_repeated_ngram(h.tokens, n);
      EXPECT_TRUE(repeats_without) << "the scorer does repeat n-grams when allowed (beam " << beam << ", n " << n << ")";
    }
  }
}

// Greedy by hand with no 2-gram twice and at least 4 tokens: a (0.3), a
// (0.7; eos is banned), then "a a" again is banned: b and c tie at 0.1 and the
// lower id, b, wins; after b: a (0.5); four tokens, so eos may come: from a,
// "a a" and "a b" are banned, c and eos tie at 0.1, and eos (id 3) wins.
TEST(SearchRules, GreedyUnderBothRulesMatchesTheHandComputedPath) {
  SearchOptions o;
  o.beam = 1;
  o.min_length = 4;
  o.no_repeat_ngram_size = 2;
  const auto out = run(o, {20});
  EXPECT_EQ(out[0][0].tokens, (std::vector<int64_t>{kA, kA, kB, kA}));
}

TEST(SearchRules, MinLengthHoldsUnlessTheLimitComesFirst) {
  for (int64_t beam : {1, 3}) {
    SearchOptions o;
    o.beam = beam;
    o.min_length = 3;
    for (const auto& h : run(o, {10, 10})[1]) EXPECT_GE(h.tokens.size(), 3u) << "beam " << beam;
    // A limit of 2 tokens (eos included): one token, then eos is forced.
    const auto short_out = run(o, {2});
    EXPECT_EQ(short_out[0][0].tokens.size(), 1u) << "beam " << beam;
    o.min_length = 0;
    EXPECT_TRUE(run(o, {10})[0][0].tokens.empty()) << "unconstrained: eos at once";
  }
  SearchOptions bad;
  bad.min_length = -1;
  EXPECT_THROW(bad.validate(), UsageError);
  bad.min_length = 0;
  bad.no_repeat_ngram_size = -2;
  EXPECT_THROW(bad.validate(), UsageError);
}

}  // namespace
}  // namespace nmt::decode::rules_test

namespace nmt::decode::repetition_test {
namespace {

constexpr int64_t kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6;
const SearchIds kIds{kBos, kEos, 1};

// penalize_repetitions by hand: each row's distinct generated tokens have
// their log-probability multiplied, then the row is renormalized.
TEST(RepetitionPenalty, EqualsAPlainComputation) {
  Rng rng(8);
  torch::manual_seed(8);
  for (double penalty : {0.5, 1.3, 4.0}) {
    const auto lp = (torch::randn({6, 9}, torch::kDouble) * 2).log_softmax(1);
    auto prefixes = torch::full({6, 5}, kBos, torch::kLong);
    for (int64_t r = 0; r < 6; ++r) {
      for (int64_t t = 1; t < 5; ++t) prefixes[r][t] = static_cast<int64_t>(3 + rng.below(6));
    }
    std::vector<bool> force_eos(6, false);
    force_eos[2] = true;  // left alone
    auto got = lp.clone();
    penalize_repetitions(got, prefixes, penalty, force_eos);
    for (int64_t r = 0; r < 6; ++r) {
      std::vector<double> row(9);
      for (int64_t v = 0; v < 9; ++v) row[v] = lp[r][v].item<double>();
      if (!force_eos[r]) {
        std::set<int64_t> seen;
        for (int64_t t = 1; t < 5; ++t) seen.insert(prefixes[r][t].item<int64_t>());
        for (int64_t v : seen) row[v] *= penalty;
        double z = 0;
        for (double x : row) z += std::exp(x);
        for (double& x : row) x -= std::log(z);
      }
      for (int64_t v = 0; v < 9; ++v) EXPECT_NEAR(got[r][v].item<double>(), row[v], 1e-12) << "row " << r;
    }
  }
}

// The repetitive chain of the rules test: a -> a 0.7, b 0.1, c 0.1, eos 0.1.
// With penalty 3 after "a": a's log(0.7) becomes 3 log(0.7) = log(0.343), so
// a (0.343) still beats b, c and eos (0.1) at every step: a until the limit
// (19 tokens and eos within 20). With penalty 8, 0.7^8 = 0.058 < 0.1: after
// the first a (bos -> eos is banned by min_length 3), b (id 5, tied with c at
// 0.1, the lower id wins) comes.
TEST(RepetitionPenalty, GreedyFollowsTheHandComputedPath) {
  SearchOptions o;
  o.beam = 1;
  o.min_length = 3;
  o.repetition_penalty = 3;
  EXPECT_EQ(rules_test::run(o, {20})[0][0].tokens, std::vector<int64_t>(19, kA));
  o.repetition_penalty = 8;
  const auto tokens = rules_test::run(o, {20})[0][0].tokens;
  ASSERT_GE(tokens.size(), 2u);
  EXPECT_EQ(tokens[0], kA);
  EXPECT_EQ(tokens[1], kB);
}

TEST(RepetitionPenalty, OneIsOffAndOthersAreValidated) {
  for (int64_t beam : {1, 4}) {
    SearchOptions o;
    o.beam = beam;
    o.min_length = 4;
    const auto plain = rules_test::run(o, {12, 12});
    o.repetition_penalty = 1.0;
    const auto off = rules_test::run(o, {12, 12});
    for (size_t s = 0; s < plain.size(); ++s) {
      EXPECT_EQ(plain[s][0].tokens, off[s][0].tokens);
      EXPECT_EQ(plain[s][0].score, off[s][0].score);
    }
  }
  SearchOptions bad;
  bad.repetition_penalty = 0;
  EXPECT_THROW(bad.validate(), UsageError);
  bad.repetition_penalty = -2;
  EXPECT_THROW(bad.validate(), UsageError);
}

}  // namespace
}  // namespace nmt::decode::repetition_test
