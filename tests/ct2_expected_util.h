// What CTranslate2 gave for a fixture model (an expected.json variant made by
// a make_fixtures.py: hypotheses and scores at beam 1 and 2, score_batch's
// log-probabilities), checked against ours: the specs' and Marian's tests.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "decode/translation.h"
#include "storage/model_dir.h"

namespace nmt::test {

// max_decoding_length of the fixtures.
inline constexpr size_t kCt2FixtureLimit = 20;

inline std::vector<int64_t> token_ids(const vocab::Vocab& v, const nlohmann::json& tokens) {
  std::vector<int64_t> ids;
  for (const auto& t : tokens) ids.push_back(v.piece_id(t.get<std::string>()));
  return ids;
}

// CTranslate2's search as the fixtures ran it: length penalty 1 in its
// form, no end token first, at most kCt2FixtureLimit tokens, its prefixes.
inline decode::TranslatorOptions ct2_fixture_search(int64_t beam) {
  decode::TranslatorOptions options;
  options.search.beam = beam;
  options.search.length_penalty = 1.0;
  options.search.length_penalty_form = decode::LengthPenaltyForm::kPower;
  options.search.min_length = 1;
  options.search.max_len_a = 0;
  options.search.max_len_b = static_cast<int64_t>(kCt2FixtureLimit);
  options.search.ctranslate2_prefix = true;
  return options;
}

// Tokens and scores (within 1e-4) at beam 1 and 2, and score_batch's
// log-probabilities (within 1e-5 + 1e-5 relative), of `loaded` on `sources`
// and `targets` (token lists) against `want`; counts the hypotheses compared
// and those skipped (at the limit CTranslate2 ends a hypothesis without its
// end token and ours forces one: not the same search's result).
inline void expect_ct2_results(const storage::LoadedModel& loaded, const nlohmann::json& sources_json,
                               const nlohmann::json& targets_json, const nlohmann::json& want, size_t& compared,
                               size_t& skipped) {
  std::vector<std::vector<int64_t>> sources, targets;
  for (const auto& s : sources_json) sources.push_back(token_ids(*loaded.vocabs.src, s));
  for (const auto& t : targets_json) targets.push_back(token_ids(*loaded.vocabs.tgt, t));
  for (int64_t beam : {1, 2}) {
    decode::Translator t(loaded.model, loaded.vocabs, ct2_fixture_search(beam));
    const auto found = t.translate_ids(sources);
    const auto& rows = want.at("beam" + std::to_string(beam));
    for (size_t i = 0; i < sources.size(); ++i) {
      const auto& row = rows.at(i);
      if (row.at("tokens").size() >= kCt2FixtureLimit) {
        ++skipped;
        continue;
      }
      ++compared;
      EXPECT_EQ(found[i].at(0).tokens, token_ids(*loaded.vocabs.tgt, row.at("tokens"))) << "beam " << beam << " line " << i;
      EXPECT_NEAR(found[i].at(0).score, row.at("score").get<double>(), 1e-4) << "beam " << beam << " line " << i;
    }
  }
  const auto scores = decode::Translator(loaded.model, loaded.vocabs, {}).score_targets(sources, targets);
  for (size_t i = 0; i < scores.size(); ++i) {
    const auto& lp = want.at("score_batch").at(i);
    ASSERT_EQ(scores[i].size(), lp.size()) << i;
    for (size_t j = 0; j < lp.size(); ++j) {
      const double e = lp.at(j).get<double>();
      EXPECT_NEAR(scores[i][j], e, 1e-5 + 1e-5 * std::abs(e)) << "pair " << i << " token " << j;
    }
  }
}

}  // namespace nmt::test
