// Config numbers: an integer key takes a whole number in its type's range and
// nothing else; JSON allows 1e48 or 2.5 anywhere, and a plain cast of those
// is undefined behaviour (found by tests/fuzz/config_fuzz.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
    try {
      config_from_json(config_with("train", "batch_tokens", bad), "c.json");
      ADD_FAILURE() << bad.dump() << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("train.batch_tokens"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("c.json"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(config_from_json(config_with("train", "batch_tokens", 2048.0), "c.json").train.batch_tokens, 2048);
  EXPECT_EQ(config_from_json(config_with("model", "n_layers", 4), "c.json").model.n_layers, 4);
  EXPECT_DOUBLE_EQ(config_from_json(config_with("train", "lr", 1e-3), "c.json").train.lr, 1e-3);
}

}  // namespace
}  // namespace nmt
