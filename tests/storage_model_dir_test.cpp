// A model directory from elsewhere: a configuration whose size the
// checkpoint's weights do not back is refused before any model is built,
// instead of allocating what it claims.
#include <gtest/gtest.h>

#include "model_dir_test_util.h"
#include "storage/model_dir.h"
#include "tests/test_support.h"
#include "tests/train_test_util.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

// Rewrites the directory's config.json and its checkpoint (checksums and
// all, as a hostile author would) with model settings changed by `edit`.
template <typename Edit>
void rewrite_model_config(const std::string& model_dir, Edit edit) {
  const std::string path = model_dir + "/checkpoints/last.pt";
  Checkpoint c = load_checkpoint(path);
  edit(c.config["model"]);
  save_checkpoint(path, c);
  test::write_file(model_dir + "/config.json", c.config.dump(2));
}

TEST(ModelDir, ConfigLargerThanItsWeightsIsRefusedBeforeBuilding) {
  test::TempDir dir;
  const std::string model_dir = dir.path("model");
  test::make_random_model_dir(dir, model_dir);
  const auto load = [&] { load_model_dir(model_dir, "", torch::kCPU); };
  ASSERT_NO_THROW(load()) << "the untouched directory loads";
  // d_model 2^20 with this vocabulary: 2^20 x ~100 embedding values alone,
  // and 2^42 per attention matrix.
  rewrite_model_config(model_dir, [](nlohmann::json& m) { m["d_model"] = 1 << 20; m["n_head"] = 1; });
  EXPECT_TRUE(test::throws_with<DataError>(load, {"last.pt", "describes a model of at least"}));
  // A positional table of 2^31 rows.
  rewrite_model_config(model_dir, [](nlohmann::json& m) {
    m["d_model"] = 32;
    m["n_head"] = 4;
    m["max_len"] = 1LL << 31;
  });
  EXPECT_TRUE(test::throws_with<DataError>(load, {"max_len 2147483648"}));
  // The translator says so in one line and exits 3.
  const test::CommandResult r =
      test::run_command(test::binary_dir() + "/translator --model " + model_dir + " 'Ein Hund.'");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("translator: error: Checkpoint"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nmt::storage
