// DIR/decoding.json: the best trial chosen (ties to the earlier, faster one),
// written and read back, damaged files refused naming themselves; and how
// the translator combines it with its flags (cli/model_decoding.h).
#include <gtest/gtest.h>

#include "cli/model_decoding.h"
#include "storage/decoding_choice.h"
#include "data_test_util.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

const std::vector<DecodingTrial> kTrials = {{4, 0.6, 38.57}, {4, 1.0, 38.9}, {4, 1.5, 39.07}, {5, 0.6, 38.6},
                                            {5, 1.0, 38.95}, {5, 1.5, 39.07}};

TEST(DecodingChoice, TheBestTrialWinsAndATieGoesToTheEarlierOne) {
  const auto c = choose_decoding(kTrials, "average.pt");
  EXPECT_EQ(c.beam, 4);  // 39.07 twice: beam 4 comes first
  EXPECT_EQ(c.length_penalty, 1.5);
  EXPECT_EQ(c.bleu, 39.07);
  EXPECT_EQ(c.checkpoint, "average.pt");
  EXPECT_EQ(c.trials.size(), kTrials.size());
  EXPECT_THROW(choose_decoding({}, "x"), std::invalid_argument);
}

TEST(DecodingChoice, WrittenAndReadBackAndDamageIsNamed) {
  test::TempDir dir;
  EXPECT_FALSE(read_decoding_choice(dir.path("decoding.json")).has_value());
  write_decoding_choice(dir.path("decoding.json"), choose_decoding(kTrials, "best.pt"));
  const auto back = read_decoding_choice(dir.path("decoding.json"));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->beam, 4);
  EXPECT_EQ(back->length_penalty, 1.5);
  EXPECT_EQ(back->checkpoint, "best.pt");
  for (const char* bad : {"{\"beam\": 4", "{\"beam\": 0, \"length_penalty\": 1}", "{\"beam\": 4}",
                          "{\"beam\": \"four\", \"length_penalty\": 1}", "{\"beam\": 4, \"length_penalty\": -1}"}) {
    test::write_file(dir.path("bad.json"), bad);
    try {
      read_decoding_choice(dir.path("bad.json"));
      ADD_FAILURE() << bad << " was read";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(dir.path("bad.json")), std::string::npos) << e.what();
    }
  }
}

TEST(ModelDecoding, TheChoiceFillsInWhatTheCommandLineLeftOut) {
  const auto choice = choose_decoding(kTrials, "best.pt");
  decode::SearchOptions s;
  auto said = cli::apply_model_decoding(s, choice, "D/decoding.json", {});
  EXPECT_EQ(s.beam, 4);
  EXPECT_EQ(s.length_penalty, 1.5);
  EXPECT_NE(said.find("as the final validation chose"), std::string::npos) << said;
  EXPECT_NE(said.find("D/decoding.json"), std::string::npos) << said;

  decode::SearchOptions flagged;
  flagged.beam = 2;
  said = cli::apply_model_decoding(flagged, choice, "D/decoding.json", {true, false});
  EXPECT_EQ(flagged.beam, 2);
  EXPECT_EQ(flagged.length_penalty, 1.5);
  EXPECT_NE(said.find("beam 2 (--beam)"), std::string::npos) << said;

  decode::SearchOptions both;
  both.length_penalty = 0.2;
  said = cli::apply_model_decoding(both, choice, "D/decoding.json", {true, true});
  EXPECT_EQ(both.beam, 4);
  EXPECT_EQ(both.length_penalty, 0.2);
  EXPECT_NE(said.find("the command line's"), std::string::npos) << said;

  decode::SearchOptions wide;  // --nbest 6 without --beam: the beam widens past the choice
  wide.nbest = 6;
  wide.beam = 6;
  cli::apply_model_decoding(wide, choice, "D/decoding.json", {});
  EXPECT_EQ(wide.beam, 6);

  decode::SearchOptions none;
  said = cli::apply_model_decoding(none, std::nullopt, "D/decoding.json", {});
  EXPECT_EQ(none.beam, 4);
  EXPECT_EQ(none.length_penalty, 0.6);
  EXPECT_NE(said.find("does not exist"), std::string::npos) << said;
}

}  // namespace
}  // namespace nmt::storage
