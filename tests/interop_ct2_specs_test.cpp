// Models built with CTranslate2's own Python specs, one per option the
// importer maps (tests/fixtures/ctranslate2/specs: pre- and post-norm,
// stored and generated positions, shared embeddings with a tied projection,
// no embedding scale, source sos/eos and a layer-norm epsilon from
// config.json, weights in int8, int16, float16 and bfloat16), random
// weights; CTranslate2 4.8.1's own outputs for them, computed in float32
// (make_fixtures.py beside them), are what ours must give.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "interop/model_loader.h"
#include "tests/ct2_expected_util.h"
#include "tests/test_support.h"

namespace nmt {
namespace {

std::string specs_dir() { return test::fixtures_dir() + "/ctranslate2/specs"; }

TEST(Ct2Specs, EveryOptionGivesCTranslate2sTokensScoresAndLogProbabilities) {
  const auto expected = nlohmann::json::parse(test::read_text(specs_dir() + "/expected.json"));
  ASSERT_FALSE(expected.at("variants").empty());
  size_t compared = 0, skipped = 0;
  for (const auto& [name, want] : expected.at("variants").items()) {
    SCOPED_TRACE(name);
    const auto loaded = interop::load_model(specs_dir() + "/" + name, "", torch::kCPU);
    test::expect_ct2_results(loaded, expected.at("sources"), expected.at("targets"), want, compared, skipped);
  }
  EXPECT_GE(compared, 3 * skipped) << "most hypotheses must end before the limit to be compared";
}

}  // namespace
}  // namespace nmt
