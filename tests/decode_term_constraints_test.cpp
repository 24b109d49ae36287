// Lexically constrained beam search (decode/term_constraints.h) over a table
// whose best output is known by hand: every hypothesis contains its terms,
// the best one is the best of all outputs that do (checked against every
// output of the table up to the length limit), a term that cannot be met is
// named, and a sentence's result does not depend on what shares its batch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "decode/beam_search.h"
#include "decode/term_constraints.h"
#include "tests/decode_test_util.h"

namespace nmt::decode::constraints_test {
namespace {

constexpr int64_t kPad = 1, kBos = 2, kEos = 3, kA = 4, kB = 5, kC = 6, kVocab = 7;
const SearchIds kIds{kBos, kEos, kPad};

std::vector<std::vector<double>> table() { return test::abc_table(); }

TermConstraint term(std::vector<std::vector<int64_t>> forms) {
  TermConstraint c{"src", "tgt", {}};
  for (auto& f : forms) c.forms.push_back({std::move(f), false});
  return c;
}

bool contains(const std::vector<int64_t>& tokens, const std::vector<int64_t>& run) {
  return std::search(tokens.begin(), tokens.end(), run.begin(), run.end()) != tokens.end();
}

// Summed log-probability of `tokens` then eos under the table.
double log_prob(const std::vector<int64_t>& tokens) {
  const auto p = table();
  double sum = 0;
  int64_t prev = kBos;
  for (int64_t t : tokens) sum += std::log(p[prev][t]), prev = t;
  return sum + std::log(p[prev][kEos]);
}

// The best output of at most `max_tokens` tokens (a, b, c) that satisfies `ok`, by trying them all.
std::vector<int64_t> best_by_enumeration(int64_t max_tokens, const std::function<bool(const std::vector<int64_t>&)>& ok) {
  std::vector<int64_t> best, current;
  double best_score = -INFINITY;
  std::function<void()> walk = [&] {
    if (ok(current) && log_prob(current) > best_score) best_score = log_prob(current), best = current;
    if (static_cast<int64_t>(current.size()) == max_tokens) return;
    for (int64_t t : {kA, kB, kC}) {
      current.push_back(t);
      walk();
      current.pop_back();
    }
  };
  walk();
  return best;
}

std::vector<std::vector<Hypothesis>> run(const SearchOptions& o, const SearchBatch& batch) {
  test::TableScorer scorer(table(), torch::kDouble);
  return search(scorer, batch, kIds, o);
}

SearchOptions exact(int64_t beam) {
  SearchOptions o;
  o.beam = beam;
  o.nbest = 1;
  o.length_penalty = 0;  // plain sums: the enumeration's order
  return o;
}

TEST(TermConstraints, AStateFollowsRunsStartingOverWhereOneBreaks) {
  const TermConstraints terms{term({{kA, kA, kB}})};
  ConstraintState s(terms);
  EXPECT_FALSE(s.all_met());
  EXPECT_EQ(s.wanted(terms, true), (std::vector<int64_t>{kA}));
  std::vector<int64_t> banks;
  for (int64_t t : {kA, kA, kA, kB}) {
    s = s.advanced(terms, t, false);
    banks.push_back(s.bank());
  }
  EXPECT_EQ(banks, (std::vector<int64_t>{1, 2, 2, 3}));  // a a a: the last two still start "a a b"
  EXPECT_TRUE(s.all_met());
  EXPECT_TRUE(s.unmet(terms).empty());
  EXPECT_TRUE(s.advanced(terms, kC, false).all_met());  // met stays met
  EXPECT_EQ(ConstraintState(terms).advanced(terms, kA, false).advanced(terms, kC, false).bank(), 0);
}

TEST(TermConstraints, ATermGluedToMoreLettersIsNotTheTerm) {
  TermConstraints terms{term({{kA, kC}})};
  auto glued = std::make_shared<std::vector<uint8_t>>(kVocab, 0);
  (*glued)[kB] = 1;  // b continues a word ("Gebäude" + "ht")
  terms[0].continues_word = glued;
  const ConstraintState done = ConstraintState(terms).advanced(terms, kA, true).advanced(terms, kC, false);
  EXPECT_TRUE(done.all_met());  // may end here: eos starts no word
  EXPECT_FALSE(done.advanced(terms, kB, false).all_met());
  EXPECT_EQ(done.advanced(terms, kB, false).bank(), 0);
  EXPECT_TRUE(done.advanced(terms, kA, false).all_met());
  EXPECT_TRUE(done.advanced(terms, kA, false).advanced(terms, kB, false).all_met());  // met stays met
  // In the search: "a c" then b is not the term; the best output holding it ends after c or goes on with a word.
  SearchBatch batch{{7}, {}, {}, {terms}};
  SearchOptions o;
  o.beam = 4;
  o.length_penalty = 0;
  test::TableScorer scorer(table(), torch::kDouble);
  const auto h = search(scorer, batch, kIds, o)[0].front();
  const auto at = std::search(h.tokens.begin(), h.tokens.end(), terms[0].forms[0].ids.begin(), terms[0].forms[0].ids.end());
  ASSERT_NE(at, h.tokens.end());
  EXPECT_TRUE(at + 2 == h.tokens.end() || *(at + 2) != kB);
}

TEST(TermConstraints, ACapitalizedFormCountsOnlyFromTheStart) {
  TermConstraints terms{term({{kB, kC}})};
  terms[0].forms.push_back({{kA, kC}, true});  // "A c": only where the translation opens
  const ConstraintState s(terms);
  EXPECT_EQ(s.wanted(terms, true), (std::vector<int64_t>{kA, kB}));
  EXPECT_EQ(s.wanted(terms, false), (std::vector<int64_t>{kB}));
  EXPECT_TRUE(s.advanced(terms, kA, true).advanced(terms, kC, false).all_met());
  EXPECT_FALSE(s.advanced(terms, kB, true).advanced(terms, kA, false).advanced(terms, kC, false).all_met());
}

TEST(TermConstraints, AnUnwritableTermIsNeverWaitedForButNamed) {
  const TermConstraints terms{TermConstraint{"x", "y", {}}};
  const ConstraintState s(terms);
  EXPECT_TRUE(s.all_met());
  EXPECT_EQ(s.unmet(terms), (std::vector<int32_t>{0}));
}

TEST(TermConstraints, BanksTakeTurnsTheMostAdvancedFirst) {
  const TermConstraints terms{term({{kA, kB}})};
  const ConstraintState none(terms), one = none.advanced(terms, kA, false), two = one.advanced(terms, kB, false);
  const std::vector<ConstrainedCandidate> c{{0, 4, -1.0f, none}, {0, 5, -2.0f, none}, {1, 4, -3.0f, one},
                                            {1, 4, -0.5f, one},  // the same row and token again: counted once
                                            {2, 5, -9.0f, two},  {0, 6, -INFINITY, two}};
  EXPECT_EQ(allocate_beam(c, 3), (std::vector<size_t>{4, 2, 0}));
  EXPECT_EQ(allocate_beam(c, 10), (std::vector<size_t>{4, 2, 0, 1}));
}

TEST(TermConstraints, TheSearchFindsTheBestOutputThatHoldsItsTerms) {
  const std::vector<std::vector<std::vector<int64_t>>> cases = {{{kC, kA}}, {{kC}}, {{kA, kA}}, {{kB, kA}, {kC}}};
  for (const auto& terms : cases) {
    TermConstraints constraints;
    for (const auto& t : terms) constraints.push_back(term({t}));
    SearchBatch batch{{7}, {}, {}, {constraints}};
    const auto out = run(exact(8), batch);
    ASSERT_EQ(out.size(), 1u);
    const auto& h = out[0].front();
    for (const auto& t : terms) EXPECT_TRUE(contains(h.tokens, t));
    EXPECT_TRUE(h.unmet_terms.empty());
    EXPECT_NEAR(h.log_prob, log_prob(h.tokens), 1e-5);  // the search sums in float
    const auto best = best_by_enumeration(6, [&](const std::vector<int64_t>& tokens) {
      return std::all_of(terms.begin(), terms.end(), [&](const auto& t) { return contains(tokens, t); });
    });
    EXPECT_EQ(h.tokens, best) << "terms " << terms.size() << ", first of " << terms.front().size() << " tokens";
  }
}

TEST(TermConstraints, AnyFormMeetsATermAndGreedyStillSearchesWithRoom) {
  SearchBatch batch{{7}, {}, {}, {{term({{kC, kC}, {kB, kC}})}}};
  SearchOptions greedy = exact(1);
  const auto h = run(greedy, batch)[0].front();
  EXPECT_TRUE(contains(h.tokens, {kC, kC}) || contains(h.tokens, {kB, kC}));
  EXPECT_TRUE(h.unmet_terms.empty());
}

TEST(TermConstraints, ATermBeyondTheLengthLimitIsNamedAndTheBestOutputKept) {
  // Two tokens and eos at most: "c a b" cannot fit; an unwritable term never can.
  SearchBatch batch{{3}, {}, {}, {{term({{kC, kA, kB}}), TermConstraint{"x", "y", {}}}}};
  const auto out = run(exact(4), batch);
  const auto& h = out[0].front();
  EXPECT_EQ(h.unmet_terms, (std::vector<int32_t>{0, 1}));
  EXPECT_FALSE(h.tokens.empty());
  EXPECT_TRUE(std::isfinite(h.score));
}

TEST(TermConstraints, ASentenceGivesTheSameResultAloneAndInAnyBatch) {
  const TermConstraints mine{term({{kC, kA}})};
  SearchOptions o = exact(4);
  o.length_penalty = 0.6;
  o.nbest = 3;
  const auto alone = run(o, SearchBatch{{9}, {}, {}, {mine}})[0];
  const auto batched = run(o, SearchBatch{{5, 9, 9, 4}, {}, {}, {{}, mine, {term({{kB, kB}})}, {}}});
  ASSERT_EQ(batched.size(), 4u);
  ASSERT_EQ(alone.size(), batched[1].size());
  for (size_t k = 0; k < alone.size(); ++k) {
    EXPECT_EQ(alone[k].tokens, batched[1][k].tokens);
    EXPECT_EQ(alone[k].score, batched[1][k].score);
  }
  // The unconstrained sentences of that batch search as if alone, too.
  const auto free = run(o, SearchBatch{{5}, {}, {}})[0];
  EXPECT_EQ(free.front().tokens, batched[0].front().tokens);
  EXPECT_EQ(free.front().score, batched[0].front().score);
}

}  // namespace
}  // namespace nmt::decode::constraints_test
