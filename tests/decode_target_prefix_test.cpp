// --target-prefix in the searches: every hypothesis of greedy and beam search
// (batched, sampling too) starts with its sentence's prefix, the prefix's
// tokens are scored with the model's own log-probabilities, a sentence
// without one is searched as if no prefix existed, and the rules never
// remove a prefix token.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "tests/decode_test_util.h"

namespace nmt::decode::prefix_test {
namespace {

constexpr int64_t kPad = 1, kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6, kVocab = 7;
const SearchIds kIds{kBos, kEos, kPad};

std::vector<std::vector<double>> table() { return test::abc_table(); }

std::vector<std::vector<Hypothesis>> run(const SearchOptions& o, const SearchBatch& batch) {
  test::TableScorer scorer(table());
  return search(scorer, batch, kIds, o);
}

bool starts_with(const std::vector<int64_t>& tokens, const std::vector<int64_t>& prefix) {
  return tokens.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), tokens.begin());
}

const std::vector<std::vector<int64_t>> kPrefixes = {{kC, kC}, {}, {kB}, {kC, kA, kC, kB}};

TEST(TargetPrefix, EveryHypothesisStartsWithItsPrefixInGreedyBeamAndSampling) {
  for (int64_t beam : {1, 3}) {
    for (int64_t topk : {1, 0}) {
      SearchOptions o;
      o.beam = beam;
      o.nbest = beam;
      o.sampling_topk = topk;
      o.no_repeat_ngram_size = 1;  // would forbid "c c" and "c a c" were the prefix not forced
      o.min_length = 2;
      const SearchBatch batch{{10, 10, 10, 5}, kPrefixes, {}};
      const auto out = run(o, batch);
      ASSERT_EQ(out.size(), kPrefixes.size());
      for (size_t s = 0; s < out.size(); ++s) {
        ASSERT_FALSE(out[s].empty());
        for (const auto& h : out[s]) {
          EXPECT_TRUE(starts_with(h.tokens, kPrefixes[s])) << "beam " << beam << ", topk " << topk << ", sentence " << s;
          EXPECT_TRUE(std::isfinite(h.score));
        }
      }
    }
  }
}

// Greedy by hand: prefix "c", then from c: eos 0.5 is best; prefix "a",
// then b (0.6), then eos (0.7). Prefix tokens count with their model
// probabilities: log(0.2) + log(0.5) and log(0.5) + log(0.6) + log(0.7).
TEST(TargetPrefix, GreedyContinuesFromThePrefixAndScoresItWithTheModel) {
  SearchOptions o;
  o.beam = 1;
  o.length_penalty = 0;
  const auto out = run(o, SearchBatch{{10, 10}, {{kC}, {kA}}, {}});
  EXPECT_EQ(out[0][0].tokens, (std::vector<int64_t>{kC}));
  EXPECT_NEAR(out[0][0].log_prob, std::log(0.2) + std::log(0.5), 1e-5);
  EXPECT_EQ(out[1][0].tokens, (std::vector<int64_t>{kA, kB}));
  EXPECT_NEAR(out[1][0].log_prob, std::log(0.5) + std::log(0.6) + std::log(0.7), 1e-5);
}

// As CTranslate2 decodes a prefix (models imported from it): its tokens add
// nothing, only what follows is scored: log(0.5), and log(0.6) + log(0.7).
TEST(TargetPrefix, TheCTranslate2ConventionLeavesThePrefixOutOfTheScore) {
  SearchOptions o;
  o.beam = 1;
  o.length_penalty = 0;
  o.ctranslate2_prefix = true;
  const auto out = run(o, SearchBatch{{10, 10}, {{kC}, {kA}}, {}});
  EXPECT_EQ(out[0][0].tokens, (std::vector<int64_t>{kC}));
  EXPECT_NEAR(out[0][0].log_prob, std::log(0.5), 1e-5);
  EXPECT_EQ(out[1][0].tokens, (std::vector<int64_t>{kA, kB}));
  EXPECT_NEAR(out[1][0].log_prob, std::log(0.6) + std::log(0.7), 1e-5);
  o.beam = 3;
  const auto beam = run(o, SearchBatch{{10, 10}, {{kC}, {kA}}, {}});
  EXPECT_NEAR(beam[1][0].log_prob, std::log(0.6) + std::log(0.7), 1e-5);
}

TEST(TargetPrefix, ASentenceWithoutOneIsSearchedAsWithoutAnyPrefix) {
  for (int64_t beam : {1, 3}) {
    SearchOptions o;
    o.beam = beam;
    o.nbest = beam;
    const auto with = run(o, SearchBatch{{10, 10, 10, 5}, kPrefixes, {}});
    const auto without = run(o, SearchBatch{{10}, {}, {}});
    ASSERT_EQ(with[1].size(), without[0].size());
    for (size_t k = 0; k < without[0].size(); ++k) {
      EXPECT_EQ(with[1][k].tokens, without[0][k].tokens) << "beam " << beam;
      EXPECT_EQ(with[1][k].score, without[0][k].score) << "beam " << beam;
    }
  }
}

TEST(TargetPrefix, ALimitWithoutRoomForThePrefixIsRefused) {
  SearchOptions o;
  EXPECT_THROW(run(o, SearchBatch{{2}, {{kA, kB}}, {}}), std::invalid_argument);
  EXPECT_THROW(run(o, SearchBatch{{10, 10}, {{kA}}, {}}), std::invalid_argument);  // one prefix for two sentences
  // Room for the prefix and eos: the prefix, then eos forced.
  const auto out = run(o, SearchBatch{{3}, {{kA, kA}}, {}});
  EXPECT_EQ(out[0][0].tokens, (std::vector<int64_t>{kA, kA}));
}

}  // namespace
}  // namespace nmt::decode::prefix_test
