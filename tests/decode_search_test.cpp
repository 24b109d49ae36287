// Greedy and beam search: against a scorer whose optimum is known, and on a
// small random Transformer (cache vs full recomputation, batching, n-best,
// scores equal to a teacher-forced recomputation).
#include <cmath>
#include <set>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "decode/length_penalty.h"
#include "decode/model_scorer.h"
#include "decode/search_step.h"
#include "decode/translation.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::decode {
namespace {

constexpr int64_t kUnk = 0, kPad = 1, kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6;
const SearchIds kIds{kBos, kEos, kPad};

// Next-token distribution depends only on the previous token: table[prev] is
// a row of probabilities. Records the row count of each step.
class MarkovScorer : public StepScorer {
 public:
  explicit MarkovScorer(const std::vector<std::vector<double>>& probs, int64_t rows) : rows_(rows) {
    std::vector<double> flat;
    for (const auto& row : probs) flat.insert(flat.end(), row.begin(), row.end());
    table_ = torch::tensor(flat, torch::kDouble).view({static_cast<int64_t>(probs.size()), -1}).log().to(torch::kFloat);
  }
  torch::Tensor next_log_probs(const torch::Tensor& prefixes) override {
    EXPECT_EQ(prefixes.size(0), rows_) << "prefix rows and scorer rows out of step";
    rows_seen.push_back(prefixes.size(0));
    return table_.index_select(0, prefixes.select(1, -1));
  }
  void select_rows(const torch::Tensor& index) override { rows_ = index.size(0); }
  std::vector<int64_t> rows_seen;

 private:
  torch::Tensor table_;
  int64_t rows_;
};

// bos -> a 0.5, b 0.4, eos 0.1; a -> eos 0.4, a 0.3, b 0.3; b -> eos 0.9, a 0.1.
// Greedy takes a then eos (p 0.2); the best output is b eos (p 0.36).
std::vector<std::vector<double>> greedy_trap() {
  const double e = 1e-9;  // unk, pad, bos, c: (almost) never
  std::vector<std::vector<double>> p(7, std::vector<double>(7, e));
  p[kBos][kA] = 0.5, p[kBos][kB] = 0.4, p[kBos][kEos] = 0.1;
  p[kA][kEos] = 0.4, p[kA][kA] = 0.3, p[kA][kB] = 0.3;
  p[kB][kEos] = 0.9, p[kB][kA] = 0.1;
  for (int64_t t : {kUnk, kPad, kEos, kC}) p[t][kEos] = 1.0;
  return p;
}

SearchOptions beam_options(int64_t beam, int64_t nbest, double alpha = 0.0) {
  SearchOptions o;
  o.beam = beam;
  o.nbest = nbest;
  o.length_penalty = alpha;
  return o;
}

TEST(SearchOnKnownDistribution, BeamFindsWhatGreedyMisses) {
  MarkovScorer greedy_scorer(greedy_trap(), 1);
  const auto greedy = greedy_search(greedy_scorer, {10}, kIds, 0.0);
  EXPECT_EQ(greedy[0].tokens, std::vector<int64_t>({kA}));
  EXPECT_NEAR(greedy[0].log_prob, std::log(0.5 * 0.4), 1e-5);

  MarkovScorer beam_scorer(greedy_trap(), 1);
  const auto beam = beam_search(beam_scorer, {10}, kIds, beam_options(2, 1));
  ASSERT_EQ(beam[0].size(), 1u);
  EXPECT_EQ(beam[0][0].tokens, std::vector<int64_t>({kB}));
  EXPECT_NEAR(beam[0][0].score, std::log(0.4 * 0.9), 1e-5);
  EXPECT_GT(beam[0][0].score, greedy[0].score);
}

TEST(SearchOnKnownDistribution, NBestIsDistinctSortedAndExact) {
  MarkovScorer scorer(greedy_trap(), 1);
  const auto out = beam_search(scorer, {10}, kIds, beam_options(3, 3));
  ASSERT_EQ(out[0].size(), 3u);
  // Step 1 completes eos alone (0.1); step 2 completes b eos (0.36) and a eos
  // (0.2), which makes three, but without a length penalty the search is
  // exact: live "a b" (0.5 x 0.3 = 0.15) can still beat eos alone, and
  // completes at step 3 (a b eos: 0.5 x 0.3 x 0.9 = 0.135) in third place.
  EXPECT_EQ(out[0][0].tokens, std::vector<int64_t>({kB}));
  EXPECT_EQ(out[0][1].tokens, std::vector<int64_t>({kA}));
  EXPECT_EQ(out[0][2].tokens, std::vector<int64_t>({kA, kB}));
  EXPECT_NEAR(out[0][2].score, std::log(0.5 * 0.3 * 0.9), 1e-5);
  EXPECT_GT(out[0][0].score, out[0][1].score);
  EXPECT_GT(out[0][1].score, out[0][2].score);
}

TEST(SearchOnKnownDistribution, LengthPenaltyNormalizesScores) {
  MarkovScorer scorer(greedy_trap(), 1);
  const auto out = beam_search(scorer, {10}, kIds, beam_options(3, 3, 1.0));
  for (const auto& h : out[0]) {
    const double expected = h.log_prob / ((5.0 + static_cast<double>(h.tokens.size() + 1)) / 6.0);
    EXPECT_NEAR(h.score, expected, 1e-9);
  }
  EXPECT_NEAR(length_penalty(1, 0.6), std::pow(1.0, 0.6), 1e-12);
  EXPECT_NEAR(length_penalty(7, 0.6), std::pow(2.0, 0.6), 1e-12);
  EXPECT_EQ(length_penalty(9, 0.0), 1.0);
}

// Patience: a sentence ends once beam x patience hypotheses have finished.
// With a length penalty (which lets longer hypotheses overtake), more
// patience runs more steps and never returns a lower best score.
TEST(SearchOnKnownDistribution, PatienceSearchesLongerAndNeverScoresWorse) {
  SearchOptions o = beam_options(2, 1, 1.0);
  MarkovScorer one(greedy_trap(), 1);
  const auto first = beam_search(one, {10}, kIds, o);
  o.patience = 3;
  MarkovScorer three(greedy_trap(), 1);
  const auto patient = beam_search(three, {10}, kIds, o);
  EXPECT_GT(three.rows_seen.size(), one.rows_seen.size());
  EXPECT_GE(patient[0][0].score, first[0][0].score);
  o.patience = 0;
  EXPECT_THROW(o.validate(), UsageError);
}

// Without a length penalty a sentence ends as soon as no live row can beat
// its n-best: fewer steps, the same hypotheses and scores as searching on
// (a penalty of 1e-12, which ranks the same, turns the shortcut off).
TEST(SearchOnKnownDistribution, WithoutALengthPenaltyTheSearchStopsOnceNothingCanWin) {
  // bos -> a 0.6, c 0.3, b 0.1; a -> eos 0.9, a 0.1; c -> eos 0.9, c 0.1; b -> b 0.99, eos 0.01: after step 2
  // "a eos" (0.54) and "c eos" (0.27) are above every live row (b b 0.099 the best), while a beam of 4 needs
  // four finished hypotheses to stop.
  const double e = 1e-9;
  std::vector<std::vector<double>> p(7, std::vector<double>(7, e));
  p[kBos][kA] = 0.6, p[kBos][kC] = 0.3, p[kBos][kB] = 0.1;
  p[kA][kEos] = 0.9, p[kA][kA] = 0.1;
  p[kC][kEos] = 0.9, p[kC][kC] = 0.1;
  p[kB][kB] = 0.99, p[kB][kEos] = 0.01;
  for (int64_t t : {kUnk, kPad, kEos}) p[t][kEos] = 1.0;
  for (int64_t nbest : {1, 2}) {
    MarkovScorer fast(p, 1), slow(p, 1);
    const auto a = beam_search(fast, {20}, kIds, beam_options(4, nbest, 0.0));
    const auto b = beam_search(slow, {20}, kIds, beam_options(4, nbest, 1e-12));
    ASSERT_EQ(a[0].size(), b[0].size());
    for (size_t k = 0; k < a[0].size(); ++k) {
      EXPECT_EQ(a[0][k].tokens, b[0][k].tokens) << "hypothesis " << k;
      EXPECT_NEAR(a[0][k].score, b[0][k].score, 1e-6);
    }
    EXPECT_EQ(fast.rows_seen.size(), 2u) << "nbest " << nbest;
    EXPECT_GT(slow.rows_seen.size(), 2u) << "nbest " << nbest;
  }
}

// pad and bos are likeliest but never produced; the length limit forces eos.
TEST(SearchOnKnownDistribution, NeverEmitsPadOrBosAndStopsAtTheLimit) {
  std::vector<std::vector<double>> p(7, std::vector<double>(7, 0.01));
  for (auto& row : p) row[kPad] = 0.4, row[kBos] = 0.4, row[kEos] = 1e-6;
  for (int64_t beam : {1, 3}) {
    MarkovScorer scorer(p, 2);
    const auto out = search(scorer, {4, 1}, kIds, beam_options(beam, 1));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0][0].tokens.size(), 3u) << "beam " << beam;  // 3 tokens + the forced eos
    EXPECT_TRUE(out[1][0].tokens.empty()) << "a limit of 1 leaves room for eos only";
    for (int64_t t : out[0][0].tokens) EXPECT_TRUE(t != kPad && t != kBos && t != kEos);
  }
}

TEST(SearchOnKnownDistribution, FinishedSentencesLeaveTheBatch) {
  MarkovScorer scorer(greedy_trap(), 3);
  // Sentence 1 may only produce eos; the others run on.
  beam_search(scorer, {10, 1, 10}, kIds, beam_options(2, 1));
  ASSERT_GE(scorer.rows_seen.size(), 2u);
  EXPECT_EQ(scorer.rows_seen[0], 3);  // one row per sentence before the first step
  EXPECT_EQ(scorer.rows_seen[1], 4);  // two sentences left, two beams each
}

std::vector<std::vector<int64_t>> mixed_sources() {
  return {{5, 6, 7, 8, 9, 10, 11}, {12}, {13, 14, 15}, {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}, {31, 32},
          {6, 6, 6, 6}};
}

TranslatorOptions translator_options(int64_t beam, int64_t nbest, int64_t batch, bool cached) {
  TranslatorOptions o;
  o.search.beam = beam;
  o.search.nbest = nbest;
  o.search.max_len_a = 1.0;
  o.search.max_len_b = 6;
  o.search.cached = cached;
  o.batch_size = batch;
  return o;
}

void expect_same(const std::vector<std::vector<Hypothesis>>& a, const std::vector<std::vector<Hypothesis>>& b,
                 const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t s = 0; s < a.size(); ++s) {
    ASSERT_EQ(a[s].size(), b[s].size()) << what << ", sentence " << s;
    for (size_t k = 0; k < a[s].size(); ++k) {
      EXPECT_EQ(a[s][k].tokens, b[s][k].tokens) << what << ", sentence " << s << ", hypothesis " << k;
      EXPECT_NEAR(a[s][k].score, b[s][k].score, 1e-4) << what << ", sentence " << s << ", hypothesis " << k;
    }
  }
}

std::vector<std::vector<Hypothesis>> run(model::Transformer model, const TranslatorOptions& o,
                                         const std::vector<std::vector<int64_t>>& sources) {
  Translator t(model, kIds, kBos, kEos, o);
  return t.translate_ids(sources);
}

class SearchOnModel : public ::testing::TestWithParam<int64_t> {};  // beam width

TEST_P(SearchOnModel, CachedEqualsFullRecomputation) {
  const int64_t beam = GetParam();
  auto model = test::tiny_model(11);
  model->eval();
  const auto cached = run(model, translator_options(beam, beam, 4, true), mixed_sources());
  const auto full = run(model, translator_options(beam, beam, 4, false), mixed_sources());
  expect_same(cached, full, "cached vs full prefix");
}

TEST_P(SearchOnModel, BatchingChangesNoTranslationNorItsPosition) {
  const int64_t beam = GetParam();
  auto model = test::tiny_model(12);
  model->eval();
  const auto sources = mixed_sources();
  std::vector<std::vector<Hypothesis>> one_by_one;
  for (const auto& s : sources) one_by_one.push_back(run(model, translator_options(beam, 1, 1, true), {s})[0]);
  std::set<std::vector<int64_t>> distinct;
  for (const auto& h : one_by_one) distinct.insert(h.at(0).tokens);
  ASSERT_GE(distinct.size(), 3u) << "outputs must differ for the test to see reordering";
  for (int64_t batch : {2, 4, 32}) {
    expect_same(run(model, translator_options(beam, 1, batch, true), sources), one_by_one,
                "batch size " + std::to_string(batch));
  }
}

INSTANTIATE_TEST_SUITE_P(GreedyAndBeam, SearchOnModel, ::testing::Values(1, 3));

TEST(SearchOnModel, BeamOfOneIsGreedy) {
  auto model = test::tiny_model(13);
  model->eval();
  torch::NoGradGuard no_grad;
  const auto sources = mixed_sources();
  Translator t(model, kIds, kBos, kEos, translator_options(1, 1, 8, true));
  std::vector<int64_t> limits;
  for (const auto& s : sources) limits.push_back(max_output_length(s.size(), t.options().search, 32));
  auto src = torch::full({static_cast<int64_t>(sources.size()), 13}, kPad, torch::kLong);
  for (size_t r = 0; r < sources.size(); ++r) {
    src[r][0] = kBos;
    for (size_t j = 0; j < sources[r].size(); ++j) src[r][j + 1] = sources[r][j];
    src[r][sources[r].size() + 1] = kEos;
  }
  ModelScorer greedy_scorer(*model, src, true), beam_scorer(*model, src, true);
  const auto greedy = greedy_search(greedy_scorer, limits, kIds, 0.6);
  const auto beam = beam_search(beam_scorer, limits, kIds, beam_options(1, 1, 0.6));
  for (size_t s = 0; s < sources.size(); ++s) {
    EXPECT_EQ(greedy[s].tokens, beam[s].at(0).tokens) << "sentence " << s;
    EXPECT_NEAR(greedy[s].score, beam[s].at(0).score, 1e-4) << "sentence " << s;
  }
}

// Teacher-forced log-probability of tokens + eos, from the plain forward pass.
double forced_log_prob(model::Transformer& model, const std::vector<int64_t>& source,
                       const std::vector<int64_t>& tokens) {
  torch::NoGradGuard no_grad;
  std::vector<int64_t> src{kBos}, trg{kBos}, gold = tokens;
  src.insert(src.end(), source.begin(), source.end());
  src.push_back(kEos);
  trg.insert(trg.end(), tokens.begin(), tokens.end());
  gold.push_back(kEos);
  auto lp = torch::log_softmax(model(torch::tensor(src).unsqueeze(0), torch::tensor(trg).unsqueeze(0))[0], -1);
  return lp.gather(1, torch::tensor(gold).unsqueeze(1)).sum().item<double>();
}

TEST(SearchOnModel, NBestHypothesesAreDistinctSortedAndScoredExactly) {
  auto model = test::tiny_model(14);
  model->eval();
  auto o = translator_options(4, 4, 8, true);
  o.search.length_penalty = 0.6;
  const auto sources = mixed_sources();
  const auto out = run(model, o, sources);
  for (size_t s = 0; s < sources.size(); ++s) {
    ASSERT_EQ(out[s].size(), 4u) << "sentence " << s;
    std::set<std::vector<int64_t>> distinct;
    for (size_t k = 0; k < out[s].size(); ++k) {
      const auto& h = out[s][k];
      distinct.insert(h.tokens);
      if (k > 0) {
        EXPECT_GE(out[s][k - 1].score, h.score) << "sentence " << s;
      }
      EXPECT_NEAR(h.log_prob, forced_log_prob(model, sources[s], h.tokens), 1e-3) << "sentence " << s;
      EXPECT_NEAR(h.score, normalized_score(h.log_prob, h.tokens.size() + 1, 0.6), 1e-9);
      EXPECT_LE(static_cast<int64_t>(h.tokens.size()) + 1, max_output_length(sources[s].size(), o.search, 32));
    }
    EXPECT_EQ(distinct.size(), 4u) << "sentence " << s;
  }
}

// A search's prefixes: bos first, a column a step, kept rows in the order
// asked (reordered, dropped, or in place), past the buffer's first capacity;
// the same tensors as a new tensor of the kept rows and the tokens each step.
TEST(GrowingPrefixes, GrowAReorderAndOutgrowTheirBuffer) {
  GrowingPrefixes growing(3, 1);
  EXPECT_TRUE(torch::equal(growing.tensor(), torch::full({3, 1}, 1, torch::kLong)));
  auto expected = torch::full({3, 1}, 1, torch::kLong);
  for (int64_t t = 0; t < 80; ++t) {
    // In place most steps; every seventh swaps the first two rows; one row leaves at step 50.
    std::vector<int64_t> keep = expected.size(0) == 3 ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0, 1};
    if (t % 7 == 6) std::swap(keep[0], keep[1]);
    if (t == 50) keep = {2, 0};
    std::vector<int64_t> tokens;
    for (size_t j = 0; j < keep.size(); ++j) tokens.push_back(100 * t + static_cast<int64_t>(j) + 3);
    growing.extend(keep, tokens);
    expected = torch::cat({expected.index_select(0, torch::tensor(keep)), torch::tensor(tokens).unsqueeze(1)}, 1);
    ASSERT_TRUE(torch::equal(growing.tensor(), expected)) << "step " << t;
  }
  EXPECT_EQ(growing.tensor().size(1), 81);
  EXPECT_THROW(growing.extend({0}, {}), c10::Error);
}

TEST(SearchOptions, OutputLimitAndValidation) {
  SearchOptions o;
  o.max_len_a = 1.5;
  o.max_len_b = 10;
  EXPECT_EQ(max_output_length(4, o, 256), 16);
  EXPECT_EQ(max_output_length(300, o, 256), 256);
  o.max_len_a = 0;
  o.max_len_b = 0;
  EXPECT_THROW(o.validate(), UsageError);
  SearchOptions n;
  n.beam = 2;
  n.nbest = 3;
  EXPECT_THROW(n.validate(), UsageError);
  n.beam = 0;
  EXPECT_THROW(n.validate(), UsageError);
}

}  // namespace
}  // namespace nmt::decode
