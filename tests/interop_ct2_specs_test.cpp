// Models built with CTranslate2's own Python specs, one per option the
// importer maps (tests/fixtures/ctranslate2/specs: pre- and post-norm,
// stored and generated positions, shared embeddings with a tied projection,
// no embedding scale, source sos/eos and a layer-norm epsilon from
// config.json, weights in int8, int16, float16 and bfloat16), random
// weights; CTranslate2 4.8.1's own outputs for them, computed in float32
// (make_fixtures.py beside them), are what ours must give.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "decode/translation.h"
#include "interop/model_loader.h"
#include "tests/test_support.h"

namespace nmt {
namespace {

std::string specs_dir() { return test::fixtures_dir() + "/ctranslate2/specs"; }

std::vector<int64_t> ids_of(const vocab::Vocab& v, const nlohmann::json& tokens) {
  std::vector<int64_t> ids;
  for (const auto& t : tokens) ids.push_back(v.piece_id(t.get<std::string>()));
  return ids;
}

constexpr size_t kLimit = 20;  // max_decoding_length of the fixtures

TEST(Ct2Specs, EveryOptionGivesCTranslate2sTokensScoresAndLogProbabilities) {
  const auto expected = nlohmann::json::parse(test::read_text(specs_dir() + "/expected.json"));
  ASSERT_FALSE(expected.at("variants").empty());
  size_t compared = 0, skipped = 0;
  for (const auto& [name, want] : expected.at("variants").items()) {
    SCOPED_TRACE(name);
    const auto loaded = interop::load_model(specs_dir() + "/" + name, "", torch::kCPU);
    std::vector<std::vector<int64_t>> sources, targets;
    for (const auto& s : expected.at("sources")) sources.push_back(ids_of(*loaded.vocabs.src, s));
    for (const auto& t : expected.at("targets")) targets.push_back(ids_of(*loaded.vocabs.tgt, t));
    for (int64_t beam : {1, 2}) {
      decode::TranslatorOptions options;
      options.search.beam = beam;
      options.search.length_penalty = 1.0;
      options.search.length_penalty_form = decode::LengthPenaltyForm::kPower;
      options.search.min_length = 1;
      options.search.max_len_a = 0;
      options.search.max_len_b = static_cast<int64_t>(kLimit);
      decode::Translator t(loaded.model, loaded.vocabs, options);
      const auto found = t.translate_ids(sources);
      const auto& rows = want.at("beam" + std::to_string(beam));
      for (size_t i = 0; i < sources.size(); ++i) {
        const auto& row = rows.at(i);
        // At the limit CTranslate2 ends a hypothesis without its end token
        // and ours forces one: those are not the same search's result.
        if (row.at("tokens").size() >= kLimit) {
          ++skipped;
          continue;
        }
        ++compared;
        EXPECT_EQ(found[i].at(0).tokens, ids_of(*loaded.vocabs.tgt, row.at("tokens"))) << "beam " << beam << " line " << i;
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
  EXPECT_GE(compared, 3 * skipped) << "most hypotheses must end before the limit to be compared";
}

}  // namespace
}  // namespace nmt
