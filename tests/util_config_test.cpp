// Config numbers: an integer key takes a whole number in its type's range and
// nothing else; JSON allows 1e48 or 2.5 anywhere, and a plain cast of those
// is undefined behaviour (found by tests/fuzz/config_fuzz.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "data_test_util.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"

namespace nmt {
namespace {

nlohmann::json config_with(const char* section, const char* key, const nlohmann::json& value) {
  nlohmann::json j = {{"data", {{"train_src", "a.de"}, {"train_tgt", "a.en"}}}};
  j[section][key] = value;
  return j;
}

TEST(ConfigNumbers, IntegerKeysRefuseFractionsAndOutOfRangeValues) {
  for (const nlohmann::json& bad : {nlohmann::json(1e48), nlohmann::json(2.5), nlohmann::json(-1e19),
                                    nlohmann::json(uint64_t{1} << 63), nlohmann::json(1e300 * 1e10)}) {
    const auto parse = [&] { config_from_json(config_with("train", "batch_tokens", bad), "c.json"); };
    EXPECT_TRUE(test::throws_with<UsageError>(parse, {"train.batch_tokens", "c.json"})) << bad.dump();
  }
  EXPECT_EQ(config_from_json(config_with("train", "batch_tokens", 2048.0), "c.json").train.batch_tokens, 2048);
  EXPECT_EQ(config_from_json(config_with("model", "n_layers", 4), "c.json").model.n_layers, 4);
  EXPECT_DOUBLE_EQ(config_from_json(config_with("train", "lr", 1e-3), "c.json").train.lr, 1e-3);
}

TEST(ConfigFile, NumberBeyondADoubleIsAUsageErrorNamingTheFile) {
  test::TempDir dir;
  test::write_file(dir.path("c.json"), "{\"train\": {\"lr\": 6e4748}}");
  EXPECT_TRUE(test::throws_with<UsageError>([&] { read_json_file(dir.path("c.json")); }, {dir.path("c.json")}));
}

// --set through a key that holds a value, not a section: a usage error naming
// it (was nlohmann's type_error; found by config_fuzz).
TEST(ConfigOverrides, SettingInsideAValueIsAUsageError) {
  nlohmann::json j = config_with("train", "precision", "bf16");
  EXPECT_THROW(apply_override(j, "train.precision.x=1"), UsageError);
  EXPECT_THROW(apply_override(j, "data.train_src.y.z=2"), UsageError);
  nlohmann::json not_an_object = nlohmann::json::array();
  EXPECT_THROW(apply_override(not_an_object, "train.epochs=3"), UsageError);
  apply_override(j, "checkpoint.average_last=2");  // a new section is made
  EXPECT_EQ(j["checkpoint"]["average_last"], 2);
  EXPECT_THROW(apply_override(j, "data.train_src=a\xD3.de"), UsageError);  // not UTF-8 (found by config_fuzz)
  EXPECT_THROW(apply_override(j, "train.lr=6e4748"), UsageError);            // no double holds it (config_fuzz)
  apply_override(j, "train.precision=fp32");  // a bare string
  EXPECT_EQ(j["train"]["precision"], "fp32");
}

// data.corpora: several corpora with weights and tags, written back whole;
// each wrong entry a usage error naming it.
nlohmann::json corpora_config(const nlohmann::json& corpora) {
  return {{"data", {{"corpora", corpora}}}};
}

Config validated(const nlohmann::json& j) {
  Config c = config_from_json(j, "c.json");
  c.validate();
  return c;
}

TEST(ConfigCorpora, SeveralCorporaWithWeightsAndTagsRoundTrip) {
  const Config c = validated(corpora_config({{{"src", "crawl.de.gz"}, {"tgt", "crawl.en.gz"}},
                                             {{"src", "bt.de"}, {"tgt", "bt.en"}, {"weight", 0.5}, {"tag", "<BT>"}},
                                             {{"src", "news.de"}, {"tgt", "news.en"}, {"weight", 3}}}));
  ASSERT_EQ(c.data.corpora.size(), 3u);
  EXPECT_DOUBLE_EQ(c.data.corpora[0].weight, 1.0) << "the default weight";
  EXPECT_EQ(c.data.corpora[1].tag, "<BT>");
  EXPECT_EQ(c.data.tags(), std::vector<std::string>{"<BT>"});
  EXPECT_EQ(c.data.training_corpora().size(), 3u);
  const Config back = validated(config_to_json(c));
  ASSERT_EQ(back.data.corpora.size(), 3u);
  EXPECT_DOUBLE_EQ(back.data.corpora[2].weight, 3.0);
  EXPECT_EQ(back.data.corpora[1].src, "bt.de");
  // One corpus the old way is a mix of one.
  const Config one = validated({{"data", {{"train_src", "a.de"}, {"train_tgt", "a.en"}}}});
  ASSERT_EQ(one.data.training_corpora().size(), 1u);
  EXPECT_EQ(one.data.training_corpora()[0].src, "a.de");
  EXPECT_FALSE(config_to_json(one)["data"].contains("corpora"));
}

TEST(ConfigCorpora, BadEntriesAreNamed) {
  using nlohmann::json;
  const json a = {{"src", "a.de"}, {"tgt", "a.en"}};
  struct Case {
    json j;
    std::vector<std::string> expect;
  };
  const std::vector<Case> cases = {
      {corpora_config({a, {{"src", "b.de"}, {"tgt", "b.en"}}, {{"src", "./a.de"}, {"tgt", "a.en"}}}),
       {"lists ./a.de / a.en twice", "entries 0 and 2"}},
      {corpora_config({a, {{"src", "b.de"}, {"tgt", "b.en"}, {"weight", 0}}}), {"data.corpora[1].weight", "positive"}},
      {corpora_config({{{"src", "b.de"}, {"tgt", "b.en"}, {"weight", -2}}}), {"data.corpora[0].weight", "-2"}},
      {corpora_config({{{"src", "b.de"}}}), {"data.corpora[0]", "\"tgt\""}},
      {corpora_config({{{"src", "b.de"}, {"tgt", "b.en"}, {"tag", "<B T>"}}}), {"data.corpora[0].tag", "one token"}},
      {corpora_config({{{"src", "b.de"}, {"tgt", "b.en"}, {"weigth", 2}}}), {"data.corpora[0].weigth", "Unknown"}},
      {corpora_config({{{"src", "b.de"}, {"tgt", "b.en"}, {"weight", "high"}}}), {"data.corpora[0].weight", "type"}},
      {corpora_config(json::object()), {"data.corpora", "list"}},
      {{{"data", {{"train_src", "a.de"}, {"train_tgt", "a.en"}, {"corpora", {a}}}}}, {"one or the other"}},
  };
  for (const Case& c : cases) {
    std::string message;
    try {
      validated(c.j);
    } catch (const UsageError& e) {
      message = e.what();
    }
    for (const auto& part : c.expect) EXPECT_NE(message.find(part), std::string::npos) << c.j.dump() << ": " << message;
  }
}

}  // namespace
}  // namespace nmt
