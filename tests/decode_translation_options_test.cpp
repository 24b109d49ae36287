// The decoding options through the Translator, on a small random model with
// real vocabularies, in fp32, bf16 and int8: a target prefix leads every
// translation of its line (and a line without one is translated as before),
// the same seed gives the same samples (in fp32 and int8 whatever the batch
// size or the batches decoded at once), and the n-gram rule holds.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "decode/translation.h"
#include "kernels/packed_linear.h"
#include "tests/test_support.h"
#include "tests/vocab_test_util.h"
#include "util/error.h"
#include "util/precision.h"

namespace nmt::decode::options_test {
namespace {

class TranslatorOptionsTest : public test::ToyVocabularyTest, public ::testing::WithParamInterface<Precision> {
 protected:
  void SetUp() override {
    if (GetParam() == Precision::kBf16 && !at::hasMKLDNN()) GTEST_SKIP() << "LibTorch without oneDNN: no CPU bf16";
    if (GetParam() == Precision::kInt8 && !kernels::PackedLinear::available(torch::kChar)) {
      GTEST_SKIP() << "no oneDNN int8 product in this build";
    }
  }
  Translator make(const TranslatorOptions& base) {
    TranslatorOptions o = base;
    o.precision = GetParam();
    return Translator(test::tiny_model(5, 24, vocabs_->src->size()), *vocabs_, o);
  }
  std::vector<int64_t> target_ids(const std::string& text) const {
    std::vector<int64_t> out;
    for (int id : vocabs_->tgt->encode(text)) out.push_back(id);
    return out;
  }
};

const std::vector<std::string> kLines = {"Ein Mann sieht dem Hund.", "Ein Kind fährt.", "Ein Haus.",
                                         "Der Hund spielt mit dem Ball.", "Eine Frau geht."};

TEST_P(TranslatorOptionsTest, ATargetPrefixLeadsEveryTranslationOfItsLine) {
  for (int64_t beam : {1, 3}) {
    TranslatorOptions o;
    o.search.beam = beam;
    o.search.nbest = beam;
    o.target_prefix = true;
    auto t = make(o);
    const auto out = t.translate({"Ein Mann sieht dem Hund.\tA man", kLines[1], "Ein Haus.\tThe house is"});
    for (size_t line : {0u, 2u}) {
      const auto prefix = target_ids(line == 0 ? "A man" : "The house is");
      ASSERT_EQ(out[line].plan.target_prefix, prefix);
      for (const auto& h : out[line].hypotheses[0]) {
        ASSERT_GE(h.tokens.size(), prefix.size());
        EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), h.tokens.begin())) << "beam " << beam << ", line " << line;
      }
      const std::string text = vocabs_->tgt->decode(prefix);
      EXPECT_EQ(out[line].texts[0].rfind(text, 0), 0u) << out[line].texts[0] << " does not start with " << text;
    }
    // A prefix longer than the model writes is refused, quoting it.
    try {
      t.translate({"Ein Haus.\t" + std::string(200, 'a') + " b"});
      ADD_FAILURE() << "an over-long prefix was taken";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("target prefix \"aaaa"), std::string::npos) << e.what();
    }
    // The line without a tab: as without the option at all (in fp32 and int8,
    // whose rows are computed alone: bf16's rounding depends on what shares
    // the batch, and near-ties may swap).
    if (GetParam() == Precision::kBf16) continue;
    o.target_prefix = false;
    EXPECT_EQ(out[1].texts, make(o).translate({kLines[1]})[0].texts) << "beam " << beam;
  }
}

TEST_P(TranslatorOptionsTest, TheSameSeedGivesTheSameSamplesWhateverTheBatching) {
  for (int64_t beam : {1, 2}) {
    TranslatorOptions o;
    o.search.beam = beam;
    o.search.sampling_topk = 0;
    o.search.sampling_temperature = 1.5;
    o.search.seed = 3;
    o.batch_size = 1;
    const auto alone = make(o).translate(kLines);
    o.batch_size = 4;
    o.parallel_batches = 2;
    const auto batched = make(o).translate(kLines);
    const auto again = make(o).translate(kLines);
    o.search.seed = 4;
    const auto reseeded = make(o).translate(kLines);
    int64_t differ = 0;
    for (size_t i = 0; i < kLines.size(); ++i) {
      EXPECT_EQ(again[i].texts, batched[i].texts) << "beam " << beam << ", line " << i;
      // Across batchings in fp32 and int8 only: bf16's rounding depends on what shares the batch.
      if (GetParam() != Precision::kBf16) {
        EXPECT_EQ(alone[i].texts, batched[i].texts) << "beam " << beam << ", line " << i;
      }
      differ += reseeded[i].texts != batched[i].texts ? 1 : 0;
    }
    EXPECT_GT(differ, 0) << "another seed draws other samples (beam " << beam << ")";
  }
}

TEST_P(TranslatorOptionsTest, NoRepeatedNgramWithAPenaltyOn) {
  TranslatorOptions o;
  o.search.beam = 3;
  o.search.nbest = 3;
  o.search.no_repeat_ngram_size = 2;
  o.search.repetition_penalty = 1.5;
  auto t = make(o);
  for (const auto& line : t.translate(kLines)) {
    for (const auto& h : line.hypotheses[0]) {
      std::set<std::pair<int64_t, int64_t>> bigrams;
      for (size_t k = 0; k + 1 < h.tokens.size(); ++k) {
        EXPECT_TRUE(bigrams.insert({h.tokens[k], h.tokens[k + 1]}).second) << "a bigram repeats";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, TranslatorOptionsTest,
                         ::testing::Values(Precision::kFp32, Precision::kBf16, Precision::kInt8),
                         [](const ::testing::TestParamInfo<Precision>& info) { return precision_name(info.param); });

}  // namespace
}  // namespace nmt::decode::options_test
