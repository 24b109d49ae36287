// Several corpora in one epoch: the pseudo-random permutations behind the
// order, corpora's weights honoured (exactly per epoch, and within binomial
// bounds in every window), repetition and continuation across epochs, tags on
// the tagged corpus's sources only, and resuming in the middle of a weighted
// epoch planned in several windows.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "data/batch_iterator.h"
#include "data/corpus_mix.h"
#include "data/encoded_corpus.h"
#include "data/epoch_order.h"
#include "data/pseudo_permutation.h"
#include "tests/test_support.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::data::mix_test {
namespace {

const SpecialIds kIds{{1, 2, 3}, {1, 2, 3}};

// n pairs whose first source id names the corpus (100 + corpus) and whose
// second names the pair, so that every row says where it came from.
std::shared_ptr<const EncodedCorpus> labelled_corpus(int corpus, int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int32_t>> src(n), tgt(n);
  for (int i = 0; i < n; ++i) {
    src[i] = {100 + corpus, 1000 + i};
    for (uint64_t k = rng.below(20); k > 0; --k) src[i].push_back(7);
    tgt[i] = std::vector<int32_t>(1 + rng.below(20), 8);
  }
  return EncodedCorpus::from_vectors(src, tgt);
}

std::shared_ptr<const CorpusMix> mix_of(const std::vector<int>& sizes, const std::vector<double>& weights,
                                        const std::vector<int32_t>& tags = {}) {
  std::vector<MixSource> sources;
  for (size_t c = 0; c < sizes.size(); ++c) {
    MixSource s;
    s.corpus = labelled_corpus(static_cast<int>(c), sizes[c], 40 + c);
    s.weight = weights[c];
    s.tag_id = c < tags.size() ? tags[c] : -1;
    s.name = "corpus" + std::to_string(c);
    sources.push_back(s);
  }
  return std::make_shared<const CorpusMix>(sources);
}

TEST(DataPseudoPermutation, IsABijectionForEverySizeAndDependsOnTheKey) {
  for (uint64_t n : {1ull, 2ull, 3ull, 5ull, 16ull, 17ull, 100ull, 1000ull, 65537ull}) {
    const PseudoPermutation p(n, 42);
    std::vector<char> hit(n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t x = p(i);
      ASSERT_LT(x, n);
      ASSERT_FALSE(hit[x]) << "n " << n << ": " << x << " twice";
      hit[x] = 1;
    }
  }
  const PseudoPermutation a(1000, 1), b(1000, 2);
  int same = 0, fixed = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    same += a(i) == b(i);
    fixed += a(i) == i;
  }
  // A random permutation agrees with another (or with the identity) at about one place.
  EXPECT_LT(same, 10);
  EXPECT_LT(fixed, 10);
}

TEST(DataPseudoPermutation, LooksUniform) {
  // Where the first element of 0..9 lands, over many keys: each tenth about equally.
  const uint64_t n = 10;
  std::vector<int> count(n, 0);
  const int keys = 20000;
  for (int k = 0; k < keys; ++k) ++count[PseudoPermutation(n, static_cast<uint64_t>(k))(0)];
  const double expected = keys / static_cast<double>(n), sigma = std::sqrt(expected * (1 - 1.0 / n));
  for (uint64_t x = 0; x < n; ++x) EXPECT_NEAR(count[x], expected, 5 * sigma) << "image " << x;
}

TEST(DataCorpusMix, QuotasFollowTheWeights) {
  const auto mix = mix_of({1000, 5000, 20000}, {1, 2, 1});
  EXPECT_EQ(mix->pairs(), 26000);
  EXPECT_EQ(mix->quota(0), 6500);
  EXPECT_EQ(mix->quota(1), 13000);
  EXPECT_EQ(mix->quota(2), 6500);
  EXPECT_EQ(mix->draws_per_epoch(), 26000);
  EXPECT_EQ(mix->first_index(2), 6000);
}

TEST(DataCorpusMix, BadCorporaAreRefused) {
  EXPECT_TRUE(test::throws_with<DataError>([] { mix_of({10, 10}, {1, 0}); }, {"weight", "corpus1", "positive"}));
  EXPECT_TRUE(test::throws_with<DataError>([] { mix_of({10}, {-2}); }, {"weight", "positive"}));
  EXPECT_TRUE(test::throws_with<DataError>([] { mix_of({10, 0}, {1, 1}); }, {"corpus1", "no pairs"}));
  EXPECT_THROW(CorpusMix(std::vector<MixSource>{}), DataError);
}

// Counts each (corpus, pair) the epoch trains on.
std::map<std::pair<int64_t, int64_t>, int> epoch_counts(BatchIterator& it, std::vector<int64_t>* per_corpus) {
  std::map<std::pair<int64_t, int64_t>, int> counts;
  Batch b;
  while (it.next(b)) {
    for (int64_t r = 0; r < b.src.size(0); ++r) {
      const int64_t corpus = b.src[r][1].item<int64_t>() - 100, pair = b.src[r][2].item<int64_t>() - 1000;
      ++counts[{corpus, pair}];
      if (per_corpus) ++(*per_corpus)[static_cast<size_t>(corpus)];
    }
  }
  return counts;
}

TEST(DataCorpusMix, AnEpochDrawsEachCorpusItsQuotaSpreadEvenlyOverItsPairs) {
  const auto mix = mix_of({300, 1500, 6000}, {1, 2, 1});  // quotas 1950, 3900, 1950
  BatchIterator it(mix, 400, 5, kIds, 0, /*window_draws=*/1000);
  std::map<std::pair<int64_t, int64_t>, int> total;
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    it.start_epoch(epoch);
    std::vector<int64_t> per_corpus(3, 0);
    const auto counts = epoch_counts(it, &per_corpus);
    // Exactly the quotas: with the weights ignored these would be 300, 1500, 6000.
    EXPECT_EQ(per_corpus, (std::vector<int64_t>{1950, 3900, 1950})) << "epoch " << epoch;
    for (const auto& [key, c] : counts) total[key] += c;
    if (epoch > 0) continue;
    // The small corpora repeat: in the first epoch each pair 6 or 7 times
    // (1950 / 300), 2 or 3 times (3900 / 1500).
    for (int p = 0; p < 300; ++p) {
      const int c = counts.count({0, p}) ? counts.at({0, p}) : 0;
      EXPECT_TRUE(c == 6 || c == 7) << "pair " << p << " of corpus 0 drawn " << c << " times";
    }
    for (int p = 0; p < 1500; ++p) {
      const int c = counts.count({1, p}) ? counts.at({1, p}) : 0;
      EXPECT_TRUE(c == 2 || c == 3) << "pair " << p << " of corpus 1 drawn " << c << " times";
    }
  }
  // Later epochs go on with the pass the previous one stopped in: after three
  // epochs each pair has been drawn 19 or 20 times (5850 / 300), 7 or 8 times
  // (11700 / 1500).
  for (int p = 0; p < 300; ++p) {
    const int c = total[{0, p}];
    EXPECT_TRUE(c == 19 || c == 20) << "pair " << p << " of corpus 0 drawn " << c << " times in 3 epochs";
  }
  for (int p = 0; p < 1500; ++p) {
    const int c = total[{1, p}];
    EXPECT_TRUE(c == 7 || c == 8) << "pair " << p << " of corpus 1 drawn " << c << " times in 3 epochs";
  }
  // The large corpus goes on where the epoch stopped: over 4 epochs (4 x 1950 = 7800 draws of
  // 6000 pairs) every pair once, 1800 of them twice, none more.
  std::map<int64_t, int> large;
  for (int64_t epoch = 0; epoch < 4; ++epoch) {
    it.start_epoch(epoch);
    for (const auto& [key, c] : epoch_counts(it, nullptr)) {
      if (key.first == 2) large[key.second] += c;
    }
  }
  ASSERT_EQ(large.size(), 6000u) << "every pair of the large corpus within 4 epochs";
  int twice = 0;
  for (const auto& [pair, c] : large) {
    ASSERT_LE(c, 2);
    twice += c == 2;
  }
  EXPECT_EQ(twice, 1800);
}

TEST(DataCorpusMix, EveryWindowIsAFairSampleOfTheMix) {
  const auto mix = mix_of({2000, 2000, 4000}, {1, 3, 4});  // shares 1/8, 3/8, 4/8
  const EpochOrder order(*mix, 9, 0);
  const int window = 1000;
  for (int w = 0; w < 8; ++w) {
    std::vector<int> count(3, 0);
    for (int k = 0; k < window; ++k) ++count[order.at(static_cast<uint64_t>(w * window + k)).source];
    for (int c = 0; c < 3; ++c) {
      const double p = mix->weight_share(static_cast<size_t>(c));
      const double sigma = std::sqrt(window * p * (1 - p));
      EXPECT_NEAR(count[c], window * p, 4.5 * sigma) << "window " << w << ", corpus " << c;
    }
  }
}

TEST(DataCorpusMix, TagsGoOnTheTaggedCorpusSourcesOnly) {
  const int32_t tag = 55;
  const auto mix = mix_of({200, 300}, {1, 1}, {-1, tag});
  BatchIterator it(mix, 300, 3, kIds, 0, 128);
  Batch b;
  int tagged = 0, plain = 0;
  while (it.next(b)) {
    for (int64_t r = 0; r < b.src.size(0); ++r) {
      const int64_t global = b.pair_indices[static_cast<size_t>(r)];
      const bool from_tagged = global >= mix->first_index(1);
      const auto row = b.src[r];
      EXPECT_EQ(row[0].item<int64_t>(), 2) << "sos first";
      if (from_tagged) {
        EXPECT_EQ(row[1].item<int64_t>(), tag);
        EXPECT_EQ(row[2].item<int64_t>(), 101);
        ++tagged;
      } else {
        EXPECT_EQ(row[1].item<int64_t>(), 100);
        ++plain;
      }
      EXPECT_EQ((row == tag).sum().item<int64_t>(), from_tagged ? 1 : 0);
      // The source's length counts the tag: eos right after the pair's ids.
      const MixSource& s = mix->source(from_tagged ? 1 : 0);
      const int64_t pair = global - mix->first_index(from_tagged ? 1 : 0);
      EXPECT_EQ(row[mix->src_len({from_tagged ? 1u : 0u, static_cast<uint32_t>(pair)}) + 1].item<int64_t>(), 3);
      EXPECT_EQ(s.corpus->src_len(pair) + (from_tagged ? 1 : 0),
                mix->src_len({from_tagged ? 1u : 0u, static_cast<uint32_t>(pair)}));
    }
  }
  EXPECT_EQ(tagged, 250);
  EXPECT_EQ(plain, 250);
}

bool same_batch(const Batch& a, const Batch& b) {
  return a.pair_indices == b.pair_indices && torch::equal(a.src, b.src) && torch::equal(a.gold, b.gold);
}

TEST(DataCorpusMix, RestoreInTheMiddleOfAWeightedEpochContinuesExactly) {
  const auto mix = mix_of({700, 2500, 400}, {2, 1, 0.5});
  BatchIterator original(mix, 500, 21, kIds, 0, 600);
  original.start_epoch(2);
  ASSERT_GT(original.windows_in_epoch(), 3);
  Batch b;
  for (int k = 0; k < 40; ++k) ASSERT_TRUE(original.next(b));
  const IteratorState saved = original.state();
  ASSERT_GT(saved.window, 0) << "the stop falls past the first window";
  const std::string text = iterator_state_to_json(saved).dump();

  BatchIterator resumed(mix, 500, 0, kIds, 0, 600);
  resumed.restore(iterator_state_from_json(nlohmann::json::parse(text)));
  EXPECT_EQ(resumed.pairs_seen(), original.pairs_seen());
  Batch x, y;
  int compared = 0;
  while (original.next(x)) {
    ASSERT_TRUE(resumed.next(y));
    ASSERT_TRUE(same_batch(x, y)) << "batch " << compared << " after the resume";
    ++compared;
  }
  EXPECT_FALSE(resumed.next(y));
  EXPECT_GT(compared, 10);
  EXPECT_EQ(resumed.pairs_seen(), original.pairs_seen());
  int64_t seen = 0;
  for (int64_t n : original.pairs_seen()) seen += n;
  EXPECT_EQ(seen, mix->draws_per_epoch()) << "the whole epoch 2, counted once";
}

TEST(DataCorpusMix, RestoreWithOtherWeightsOrCorporaIsRefused) {
  BatchIterator it(mix_of({50, 60}, {1, 2}), 300, 1, kIds);
  const IteratorState s = it.state();
  BatchIterator other_weights(mix_of({50, 60}, {1, 3}), 300, 1, kIds);
  EXPECT_TRUE(test::throws_with<DataError>([&] { other_weights.restore(s); }, {"weights changed"}));
  BatchIterator other_corpora(mix_of({60, 50}, {1, 2}), 300, 1, kIds);
  EXPECT_TRUE(test::throws_with<DataError>([&] { other_corpora.restore(s); }, {"(50, 60)", "(60, 50)"}));
}

}  // namespace
}  // namespace nmt::data::mix_test
