// Sampling (--sampling-topk, -topp, -temperature, --seed): the sampling
// distribution against a plain computation, greedy draws against the model's
// own probabilities within statistical bounds, support of top-k and top-p,
// the same seed giving the same samples whatever the batch, beam sampling's
// candidates distinct and inside the support, and sampling off changing
// nothing.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "decode/sampling.h"
#include "tests/decode_test_util.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::decode::sampling_test {
namespace {

constexpr int64_t kPad = 1, kBos = 2, kEos = 3, kVocab = 10;
const SearchIds kIds{kBos, kEos, kPad};
constexpr double kTiny = 1e-12;  // probability of what "never" happens in the tables below

// After bos: tokens 4..9 with these probabilities (eos never); after any
// token: eos only. One draw per sentence, from kFirst.
const std::vector<double> kFirst = {0.05, 0.30, 0.10, 0.25, 0.18, 0.12};

std::vector<std::vector<double>> one_token_table() {
  std::vector<std::vector<double>> p(kVocab, std::vector<double>(kVocab, kTiny));
  for (size_t i = 0; i < kFirst.size(); ++i) p[kBos][4 + i] = kFirst[i];
  for (int64_t t = 0; t < kVocab; ++t) {
    if (t != kBos) p[t][kEos] = 1.0;
  }
  return p;
}

// A table that keeps going: from every token, eos 0.15 and the rest spread
// unevenly over 4..9 (from bos: no eos).
std::vector<std::vector<double>> chain_table() {
  Rng rng(11);
  std::vector<std::vector<double>> p(kVocab, std::vector<double>(kVocab, kTiny));
  for (int64_t from = 0; from < kVocab; ++from) {
    double total = 0;
    for (int64_t to = 4; to < kVocab; ++to) total += p[from][to] = 0.2 + rng.uniform();
    const double keep = from == kBos ? 1.0 : 0.85;
    for (int64_t to = 4; to < kVocab; ++to) p[from][to] *= keep / total;
    if (from != kBos) p[from][kEos] = 0.15;
  }
  return p;
}

SearchOptions sampling(int64_t topk, double topp = 1.0, double temperature = 1.0, uint64_t seed = 0) {
  SearchOptions o;
  o.beam = 1;
  o.length_penalty = 0;
  o.sampling_topk = topk;
  o.sampling_topp = topp;
  o.sampling_temperature = temperature;
  o.seed = seed;
  return o;
}

// First tokens of n greedy draws, counted per token 4..9.
std::vector<int64_t> first_token_counts(const SearchOptions& o, int64_t n) {
  test::TableScorer scorer(one_token_table(), torch::kDouble);
  const auto out = greedy_search(scorer, std::vector<int64_t>(n, 5), kIds, o);
  std::vector<int64_t> counts(kFirst.size(), 0);
  for (const auto& h : out) {
    EXPECT_EQ(h.tokens.size(), 1u);
    if (h.tokens.size() == 1) ++counts.at(static_cast<size_t>(h.tokens[0] - 4));
  }
  return counts;
}

// Pearson's statistic of `counts` against probabilities `expected` (tokens
// with probability 0 must not occur at all).
double chi_squared(const std::vector<int64_t>& counts, const std::vector<double>& expected) {
  const double n = static_cast<double>(std::accumulate(counts.begin(), counts.end(), int64_t{0}));
  double stat = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (expected[i] == 0) {
      EXPECT_EQ(counts[i], 0) << "token " << 4 + i << " is outside the support";
      continue;
    }
    const double e = n * expected[i];
    stat += (static_cast<double>(counts[i]) - e) * (static_cast<double>(counts[i]) - e) / e;
  }
  return stat;
}

// The sampling distribution by hand: scale, keep the top k, then the
// smallest prefix (by probability) reaching p, renormalize.
std::vector<double> reference_distribution(std::vector<double> lp, int64_t k, double p, double temperature) {
  for (double& x : lp) x /= temperature;
  double z = 0;
  for (double x : lp) z += std::exp(x);
  for (double& x : lp) x -= std::log(z);
  std::vector<size_t> order(lp.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lp[a] > lp[b]; });
  std::vector<bool> keep(lp.size(), false);
  double mass = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (k > 0 && static_cast<int64_t>(i) >= k) break;
    if (i > 0 && mass >= p) break;
    keep[order[i]] = true;
    mass += std::exp(lp[order[i]]);
  }
  double kept = 0;
  for (size_t i = 0; i < lp.size(); ++i) kept += keep[i] ? std::exp(lp[i]) : 0;
  std::vector<double> out(lp.size());
  for (size_t i = 0; i < lp.size(); ++i) {
    out[i] = keep[i] ? lp[i] - std::log(kept) : -std::numeric_limits<double>::infinity();
  }
  return out;
}

TEST(Sampling, DistributionEqualsAPlainComputation) {
  torch::manual_seed(3);
  const auto lp = (torch::randn({5, 12}, torch::kDouble) * 2).log_softmax(1);
  struct Case {
    int64_t k;
    double p, t;
  };
  for (const Case c : {Case{0, 1.0, 1.0}, Case{3, 1.0, 1.0}, Case{0, 0.5, 1.0}, Case{4, 0.7, 0.5}, Case{0, 0.9, 2.5},
                       Case{1000, 0.01, 1.0}}) {
    SearchOptions o = sampling(c.k, c.p, c.t);
    const auto got = sampling_distribution(lp, o);
    for (int64_t r = 0; r < lp.size(0); ++r) {
      const auto row = lp[r].contiguous();
      const auto want = reference_distribution({row.data_ptr<double>(), row.data_ptr<double>() + row.numel()}, c.k,
                                               c.p, c.t);
      for (int64_t v = 0; v < lp.size(1); ++v) {
        const double g = got[r][v].item<double>();
        if (std::isinf(want[static_cast<size_t>(v)])) {
          EXPECT_TRUE(std::isinf(g) && g < 0) << "k " << c.k << " p " << c.p << " row " << r << " token " << v;
        } else {
          EXPECT_NEAR(g, want[static_cast<size_t>(v)], 1e-9) << "k " << c.k << " p " << c.p << " t " << c.t;
        }
      }
    }
  }
}

// 6,000 draws, a fixed seed: the counts are fixed too, and Pearson's
// statistic must stay below the 1e-6 tail of chi-squared (5 degrees of
// freedom: 35.9; 2: 27.6) - a sampler off by a few percent on any token fails.
TEST(Sampling, GreedyDrawsFollowTheModelsProbabilities) {
  const auto counts = first_token_counts(sampling(0), 6000);
  EXPECT_LT(chi_squared(counts, kFirst), 35.9);
  // A wrong distribution is caught: the counts are far from uniform.
  EXPECT_GT(chi_squared(counts, std::vector<double>(kFirst.size(), 1.0 / 6)), 100.0);
}

TEST(Sampling, TemperatureSharpensOrFlattensAsPowerOfTheProbabilities) {
  for (double t : {0.5, 2.0}) {
    std::vector<double> expected;
    for (double p : kFirst) expected.push_back(std::pow(p, 1 / t));
    const double z = std::accumulate(expected.begin(), expected.end(), 0.0);
    for (double& e : expected) e /= z;
    const auto counts = first_token_counts(sampling(0, 1.0, t, 7), 6000);
    EXPECT_LT(chi_squared(counts, expected), 35.9) << "temperature " << t;
    EXPECT_GT(chi_squared(counts, kFirst), 60.0) << "temperature " << t << " changes the distribution";
  }
}

TEST(Sampling, TopKAndTopPDrawOnlyFromTheirSupportInProportion) {
  // Top 3: tokens 5 (0.30), 7 (0.25), 8 (0.18).
  std::vector<double> top3 = {0, 0.30, 0, 0.25, 0.18, 0};
  for (double& e : top3) e /= 0.73;
  EXPECT_LT(chi_squared(first_token_counts(sampling(3, 1.0, 1.0, 1), 6000), top3), 27.6);
  // Top p 0.6: 0.30 + 0.25 = 0.55 < 0.6, so 8 (0.18) completes it.
  EXPECT_LT(chi_squared(first_token_counts(sampling(0, 0.6, 1.0, 2), 6000), top3), 27.6);
  // Top p 0.5: 0.30 alone is short of it, 0.30 + 0.25 reaches it.
  std::vector<double> top2 = {0, 0.30 / 0.55, 0, 0.25 / 0.55, 0, 0};
  EXPECT_LT(chi_squared(first_token_counts(sampling(0, 0.5, 1.0, 3), 6000), top2), 27.6);
}

std::vector<std::vector<int64_t>> sampled_tokens(const SearchOptions& o, const SearchBatch& batch) {
  test::TableScorer scorer(chain_table(), torch::kDouble);
  std::vector<std::vector<int64_t>> out;
  for (const auto& hyps : search(scorer, batch, kIds, o)) {
    for (const auto& h : hyps) out.push_back(h.tokens);
  }
  return out;
}

TEST(Sampling, TheSameSeedGivesTheSameSamplesWhateverTheBatch) {
  for (int64_t beam : {1, 3}) {
    SearchOptions o = sampling(0, 1.0, 1.0, 42);
    o.beam = beam;
    SearchBatch batch;
    for (uint64_t s = 0; s < 40; ++s) {
      batch.max_lengths.push_back(12);
      batch.sample_keys.push_back(sample_key(o.seed, {static_cast<int64_t>(s)}, {}));
    }
    const auto first = sampled_tokens(o, batch);
    EXPECT_EQ(sampled_tokens(o, batch), first) << "beam " << beam;
    // A sentence alone, with its key, draws what it drew among 39 others.
    for (size_t s : {0u, 17u, 39u}) {
      const SearchBatch alone{{12}, {}, {batch.sample_keys[s]}};
      EXPECT_EQ(sampled_tokens(o, alone).front(), first[s]) << "beam " << beam << ", sentence " << s;
    }
    // Forty sentences really are drawn: they differ from each other, and under another seed.
    EXPECT_GT(std::set<std::vector<int64_t>>(first.begin(), first.end()).size(), 20u);
    SearchBatch other = batch;
    for (auto& key : other.sample_keys) key = sample_key(43, {static_cast<int64_t>(&key - other.sample_keys.data())}, {});
    const auto reseeded = sampled_tokens(o, other);
    int64_t same = 0;
    for (size_t s = 0; s < first.size(); ++s) same += reseeded[s] == first[s] ? 1 : 0;
    EXPECT_LT(same, 20) << "beam " << beam;
  }
}

TEST(Sampling, BeamSamplingReturnsDistinctHypothesesInsideTheSupport) {
  const auto table = chain_table();
  SearchOptions o = sampling(2, 1.0, 1.0, 5);
  o.beam = 4;
  o.nbest = 4;
  test::TableScorer scorer(table, torch::kDouble);
  const auto out = beam_search(scorer, std::vector<int64_t>(20, 10), kIds, o);
  std::set<std::vector<int64_t>> seen_all;
  for (const auto& hyps : out) {
    std::set<std::vector<int64_t>> distinct;
    for (const auto& h : hyps) {
      distinct.insert(h.tokens);
      seen_all.insert(h.tokens);
      // Every token is one of the two most probable after its predecessor (eos counted).
      int64_t prev = kBos;
      std::vector<int64_t> path = h.tokens;
      if (path.size() + 1 < 10) path.push_back(kEos);  // not cut by the limit: it ended with eos
      for (int64_t token : path) {
        std::vector<double> row = table[static_cast<size_t>(prev)];
        std::vector<double> sorted = row;
        std::sort(sorted.rbegin(), sorted.rend());
        EXPECT_GE(row[static_cast<size_t>(token)], sorted[1]) << "token " << token << " after " << prev;
        prev = token;
      }
    }
    EXPECT_EQ(distinct.size(), hyps.size());
  }
  EXPECT_GT(seen_all.size(), 10u) << "twenty sentences, four samples each: not all alike";
}

TEST(Sampling, AGreedyDrawIsScoredWithTheSamplingDistribution) {
  const auto table = chain_table();
  for (double t : {1.0, 0.7}) {
    test::TableScorer scorer(table, torch::kDouble);
    const auto out = greedy_search(scorer, std::vector<int64_t>(10, 12), kIds, sampling(0, 1.0, t, 9));
    for (const auto& h : out) {
      double sum = 0;
      int64_t prev = kBos;
      for (int64_t token : h.tokens) {
        std::vector<double> lp;
        for (double p : table[static_cast<size_t>(prev)]) lp.push_back(std::log(p));
        sum += reference_distribution(lp, 0, 1.0, t)[static_cast<size_t>(token)];
        prev = token;
      }
      // The end: drawn like any token, or at the limit (11 tokens) forced, with the model's own log-probability.
      std::vector<double> lp;
      for (double p : table[static_cast<size_t>(prev)]) lp.push_back(std::log(p));
      sum += h.tokens.size() < 11 ? reference_distribution(lp, 0, 1.0, t)[kEos] : lp[kEos];
      EXPECT_NEAR(h.log_prob, sum, 1e-6) << "temperature " << t;
    }
  }
}

TEST(Sampling, OffLeavesTheSearchUnchanged) {
  for (int64_t beam : {1, 3}) {
    SearchOptions plain;
    plain.beam = beam;
    SearchOptions off = plain;
    off.sampling_temperature = 3.0;  // only read when sampling
    off.sampling_topp = 0.2;
    off.seed = 99;
    test::TableScorer a(chain_table(), torch::kDouble), b(chain_table(), torch::kDouble);
    const auto x = search(a, std::vector<int64_t>(5, 12), kIds, plain);
    const auto y = search(b, std::vector<int64_t>(5, 12), kIds, off);
    ASSERT_EQ(x.size(), y.size());
    for (size_t s = 0; s < x.size(); ++s) {
      ASSERT_EQ(x[s].size(), y[s].size());
      for (size_t k = 0; k < x[s].size(); ++k) {
        EXPECT_EQ(x[s][k].tokens, y[s][k].tokens);
        EXPECT_EQ(x[s][k].score, y[s][k].score);
      }
    }
  }
}

TEST(Sampling, OptionsAreValidated) {
  for (auto bad : {sampling(-1), sampling(0, 0.0), sampling(0, 1.5), sampling(0, 1.0, 0.0), sampling(0, 1.0, -1)}) {
    EXPECT_THROW(bad.validate(), UsageError);
  }
  EXPECT_NO_THROW(sampling(0, 0.3, 0.2).validate());
}

}  // namespace
}  // namespace nmt::decode::sampling_test
