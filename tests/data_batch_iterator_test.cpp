// Batching: coverage, token budget, padding, determinism by (seed, epoch),
// and exact save/restore of the position.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <nlohmann/json.hpp>

#include "data/batch_iterator.h"
#include "data/encoded_corpus.h"
#include "tests/test_support.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::data {
namespace {

// Pairs of random lengths 1..60 whose ids encode (pair, position), so that
// any misplaced token is visible.
std::shared_ptr<const EncodedCorpus> random_corpus(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int32_t>> src(n), tgt(n);
  for (int i = 0; i < n; ++i) {
    const auto sl = static_cast<int64_t>(1 + rng.below(60));
    const int64_t tl = std::max<int64_t>(1, sl + static_cast<int64_t>(rng.below(11)) - 5);
    for (int64_t k = 0; k < sl; ++k) src[i].push_back(static_cast<int32_t>(10 + (i * 131 + k) % 50000));
    for (int64_t k = 0; k < tl; ++k) tgt[i].push_back(static_cast<int32_t>(10 + (i * 137 + k * 3) % 50000));
  }
  return EncodedCorpus::from_vectors(src, tgt);
}

const SpecialIds kIds{{1, 2, 3}, {1, 2, 3}};

std::vector<std::vector<int64_t>> epoch_pairs(BatchIterator& it) {
  std::vector<std::vector<int64_t>> out;
  Batch b;
  while (it.next(b)) out.push_back(b.pair_indices);
  return out;
}

bool same_batch(const Batch& a, const Batch& b) {
  return a.pair_indices == b.pair_indices && torch::equal(a.src, b.src) && torch::equal(a.tgt_in, b.tgt_in) &&
         torch::equal(a.gold, b.gold);
}

TEST(DataBatchIterator, EveryTokenExactlyOncePerEpochWithinBudget) {
  auto corpus = random_corpus(3000, 1);
  const int64_t budget = 1000;
  BatchIterator it(corpus, budget, 17, kIds);
  std::vector<int> seen(3000, 0);
  int64_t src_tokens = 0, gold_tokens = 0;
  Batch b;
  while (it.next(b)) {
    const int64_t rows = b.src.size(0), s = b.src.size(1), t = b.gold.size(1);
    ASSERT_EQ(b.tgt_in.sizes(), b.gold.sizes());
    ASSERT_EQ(static_cast<int64_t>(b.pair_indices.size()), rows);
    if (rows > 1) {
      EXPECT_LE(rows * std::max(s, t + 1), budget) << "budget counts padded cells";
    }
    EXPECT_EQ(b.src.ne(1).sum().item<int64_t>(), b.src_tokens);
    EXPECT_EQ(b.gold.ne(1).sum().item<int64_t>(), b.tgt_tokens);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = b.pair_indices[static_cast<size_t>(r)];
      ++seen[static_cast<size_t>(i)];
      // Row = sos, the pair's ids, eos, then pads only.
      const auto src_ids = corpus->src(i);
      const auto sl = static_cast<int64_t>(src_ids.size());
      auto row = b.src[r];
      EXPECT_EQ(row[0].item<int64_t>(), 2);
      for (int64_t k = 0; k < sl; ++k) ASSERT_EQ(row[k + 1].item<int64_t>(), src_ids[static_cast<size_t>(k)]);
      EXPECT_EQ(row[sl + 1].item<int64_t>(), 3);
      EXPECT_TRUE(row.slice(0, sl + 2).eq(1).all().item<bool>());
      const auto tgt_ids = corpus->tgt(i);
      const auto tl = static_cast<int64_t>(tgt_ids.size());
      EXPECT_EQ(b.tgt_in[r][0].item<int64_t>(), 2);
      for (int64_t k = 0; k < tl; ++k) {
        ASSERT_EQ(b.gold[r][k].item<int64_t>(), tgt_ids[static_cast<size_t>(k)]);
        ASSERT_EQ(b.tgt_in[r][k + 1].item<int64_t>(), tgt_ids[static_cast<size_t>(k)]);
      }
      EXPECT_EQ(b.gold[r][tl].item<int64_t>(), 3);
    }
    src_tokens += b.src_tokens;
    gold_tokens += b.tgt_tokens;
  }
  for (int count : seen) ASSERT_EQ(count, 1);
  EXPECT_EQ(src_tokens, corpus->src_tokens() + 2 * corpus->size());
  EXPECT_EQ(gold_tokens, corpus->tgt_tokens() + corpus->size());
}

TEST(DataBatchIterator, LengthBucketingKeepsPaddingSmall) {
  auto corpus = random_corpus(20000, 2);
  BatchIterator it(corpus, 4096, 5, kIds);
  int64_t cells = 0, real = 0;
  Batch b;
  while (it.next(b)) {
    cells += b.src.numel() + b.gold.numel();
    real += b.src_tokens + b.tgt_tokens;
  }
  const double pad_share = 1.0 - static_cast<double>(real) / static_cast<double>(cells);
  EXPECT_LT(pad_share, 0.10) << "padding share " << pad_share;
}

TEST(DataBatchIterator, OverlongPairFormsItsOwnBatch) {
  std::vector<std::vector<int32_t>> src = {std::vector<int32_t>(50, 7), {7}, {7, 7}};
  std::vector<std::vector<int32_t>> tgt = {{8}, {8}, {8}};
  BatchIterator it(EncodedCorpus::from_vectors(src, tgt), 20, 1, kIds);
  std::map<int64_t, size_t> rows_of;
  Batch b;
  while (it.next(b)) {
    for (auto i : b.pair_indices) rows_of[i] = b.pair_indices.size();
  }
  ASSERT_EQ(rows_of.size(), 3u);
  EXPECT_EQ(rows_of[0], 1u);
}

TEST(DataBatchIterator, SameSeedAndEpochSameBatchesOtherwiseDifferent) {
  auto corpus = random_corpus(2000, 3);
  BatchIterator a(corpus, 800, 11, kIds), b(corpus, 800, 11, kIds), c(corpus, 800, 12, kIds);
  const auto ea = epoch_pairs(a), eb = epoch_pairs(b), ec = epoch_pairs(c);
  EXPECT_EQ(ea, eb);
  EXPECT_NE(ea, ec);
  a.start_epoch(1);
  const auto ea1 = epoch_pairs(a);
  EXPECT_NE(ea, ea1) << "a new epoch reshuffles";
  b.start_epoch(1);
  EXPECT_EQ(ea1, epoch_pairs(b));
}

TEST(DataBatchIterator, RestoredStateContinuesWithTheSameNextBatch) {
  auto corpus = random_corpus(2000, 4);
  BatchIterator original(corpus, 700, 99, kIds);
  original.start_epoch(3);
  Batch b;
  for (int k = 0; k < 5; ++k) ASSERT_TRUE(original.next(b));
  const nlohmann::json saved = iterator_state_to_json(original.state());
  const std::string text = saved.dump();

  BatchIterator resumed(corpus, 700, 0, kIds);  // another seed and epoch until restored
  resumed.restore(iterator_state_from_json(nlohmann::json::parse(text)));
  EXPECT_EQ(resumed.epoch(), 3);
  Batch x, y;
  int compared = 0;
  while (original.next(x)) {
    ASSERT_TRUE(resumed.next(y));
    ASSERT_TRUE(same_batch(x, y)) << "batch " << compared;
    ++compared;
  }
  EXPECT_FALSE(resumed.next(y));
  EXPECT_GT(compared, 0);

  // At the end of an epoch: nothing left, and the next epoch matches.
  resumed.restore(original.state());
  EXPECT_FALSE(resumed.next(y));
  original.start_epoch(4);
  resumed.start_epoch(4);
  ASSERT_TRUE(original.next(x));
  ASSERT_TRUE(resumed.next(y));
  EXPECT_TRUE(same_batch(x, y));
}

TEST(DataBatchIterator, RestoreOntoAnotherCorpusOrBudgetIsRefused) {
  BatchIterator it(random_corpus(500, 5), 600, 1, kIds);
  IteratorState s = it.state();
  BatchIterator other_corpus(random_corpus(400, 5), 600, 1, kIds);
  EXPECT_THROW(other_corpus.restore(s), DataError);
  BatchIterator other_budget(random_corpus(500, 5), 900, 1, kIds);
  EXPECT_THROW(other_budget.restore(s), DataError);
  s.next_batch = 1000000;
  EXPECT_THROW(it.restore(s), DataError);
  EXPECT_THROW(iterator_state_from_json(nlohmann::json{{"seed", 1}}), DataError);
  // A damaged window is refused before anything is planned from it.
  IteratorState negative = it.state();
  negative.window = -2;
  EXPECT_THROW(it.restore(negative), DataError);
}

// A position saved before epochs were ordered in windows counts batches of
// another order: refused, not silently continued in this one.
TEST(DataBatchIterator, APositionSavedByTheEarlierOrderIsRefused) {
  const nlohmann::json old = {{"seed", 1}, {"epoch", 3}, {"next_batch", 500}, {"num_pairs", 29000}, {"batch_tokens", 4096}};
  EXPECT_TRUE(test::throws_with<DataError>([&] { iterator_state_from_json(old); }, {"earlier version", "--init-from"}));
}

TEST(DataBatchIterator, SortedBatchesAreFixedAndComplete) {
  auto corpus = random_corpus(1500, 6);
  const auto a = make_sorted_batches(*corpus, 1000, kIds);
  const auto b = make_sorted_batches(*corpus, 1000, kIds);
  ASSERT_EQ(a.size(), b.size());
  std::vector<int> seen(1500, 0);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_TRUE(same_batch(a[k], b[k]));
    for (auto i : a[k].pair_indices) ++seen[static_cast<size_t>(i)];
  }
  for (int count : seen) EXPECT_EQ(count, 1);
}

TEST(DataBatchIterator, PadAndSpecialIdsComeFromTheVocabulary) {
  const SpecialIds ids{{0, 5, 6}, {9, 7, 8}};
  BatchIterator it(EncodedCorpus::from_vectors({{20, 21, 22}, {23}}, {{30}, {31, 32, 33}}), 100, 1, ids);
  Batch b;
  ASSERT_TRUE(it.next(b));
  ASSERT_EQ(b.src.size(0), 2);
  const int64_t row_short = b.pair_indices[0] == 1 ? 0 : 1;  // the pair with source {23}
  EXPECT_TRUE(torch::equal(b.src[row_short], torch::tensor({5, 23, 6, 0, 0}, torch::kInt64)));
  EXPECT_TRUE(torch::equal(b.tgt_in[row_short], torch::tensor({7, 31, 32, 33}, torch::kInt64)));
  EXPECT_TRUE(torch::equal(b.gold[row_short], torch::tensor({31, 32, 33, 8}, torch::kInt64)));
  EXPECT_TRUE(torch::equal(b.gold[1 - row_short], torch::tensor({30, 8, 9, 9}, torch::kInt64)));
}

}  // namespace
}  // namespace nmt::data
