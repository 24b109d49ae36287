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

// The next token's distribution depends on the previous token only.
class MarkovScorer : public StepScorer {
 public:
  explicit MarkovScorer(const std::vector<std::vector<double>>& probs) {
    std::vector<double> flat;
    for (const auto& row : probs) flat.insert(flat.end(), row.begin(), row.end());
    table_ = torch::tensor(flat, torch::kDouble).view({kVocab, kVocab}).log().to(torch::kFloat);
  }
  torch::Tensor next_log_probs(const torch::Tensor& prefixes) override {
    return table_.index_select(0, prefixes.select(1, -1));
  }
  void select_rows(const torch::Tensor&) override {}

 private:
  torch::Tensor table_;
};

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
  MarkovScorer scorer(repetitive());
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
