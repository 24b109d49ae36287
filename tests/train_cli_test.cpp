// The trainer executable's answers to bad input (docs/errors.md): one clear
// message naming the file, and exit 2 for config errors, 3 for data and
// checkpoint errors.
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/train_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

class TrainerCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(test::trainer_binary())) GTEST_SKIP() << "trainer executable not built";
  }
  test::CommandResult trainer(const std::string& args) {
    return test::run_command(test::shell_quote(test::trainer_binary()) + " " + args);
  }
  // --config c.json --out run, both in this test's directory.
  std::string config_and_out() const {
    return "--config " + test::shell_quote(dir_.path("c.json")) + " --out " + test::shell_quote(dir_.path("run"));
  }
  test::TempDir dir_;
};

TEST_F(TrainerCli, MalformedJsonNamesFileAndLine) {
  test::write_file(dir_.path("bad.json"), "{\n  \"train\": {\n    \"epochs\": 3,,\n  }\n}\n");
  auto r = trainer("--config " + test::shell_quote(dir_.path("bad.json")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("line 3"), std::string::npos) << r.output;
}

TEST_F(TrainerCli, UnknownKeyIsNamed) {
  auto config = test::tiny_training_config(dir_.root());
  config["train"]["epoch"] = 3;  // a typo of "epochs"
  test::write_json(dir_.path("c.json"), config);
  auto r = trainer("--config " + test::shell_quote(dir_.path("c.json")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("train.epoch"), std::string::npos) << r.output;
}

TEST_F(TrainerCli, UnknownOverrideKeyIsNamed) {
  test::write_json(dir_.path("c.json"), test::tiny_training_config(dir_.root()));
  auto r = trainer("--config " + test::shell_quote(dir_.path("c.json")) + " --set model.colour=3");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("model.colour"), std::string::npos) << r.output;
}

TEST_F(TrainerCli, MissingCorpusIsADataError) {
  auto config = test::tiny_training_config(dir_.root());
  config["data"]["train_src"] = dir_.path("nowhere.en");
  test::write_json(dir_.path("c.json"), config);
  auto r = trainer(config_and_out());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("nowhere.en"), std::string::npos) << r.output;
}

TEST_F(TrainerCli, TruncatedCheckpointIsSkippedAndAllCorruptIsAnError) {
  test::write_json(dir_.path("c.json"), test::tiny_training_config(dir_.root()));
  const std::string base = config_and_out();
  ASSERT_EQ(trainer(base + " --set train.max_steps=6").code, 0);
  // Cut the newest step file (last.pt is a link to the same inode, so it is cut too).
  const std::string newest = dir_.path("run") + "/checkpoints/step-000000006.pt";
  ASSERT_TRUE(fs::exists(newest));
  fs::resize_file(newest, fs::file_size(newest) / 2);
  auto resumed = trainer(base + " --resume --set train.max_steps=9");
  EXPECT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("skipping checkpoint"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("resumed from step 3"), std::string::npos) << resumed.output;
  // Now corrupt every checkpoint: resuming must refuse rather than start over.
  for (const auto& e : fs::directory_iterator(dir_.path("run") + "/checkpoints")) {
    test::write_file(e.path().string(), "garbage");
  }
  auto refused = trainer(base + " --resume");
  EXPECT_EQ(refused.code, 3) << refused.output;
  EXPECT_NE(refused.output.find("corrupt"), std::string::npos) << refused.output;
}

TEST_F(TrainerCli, ResumeWithAnotherModelIsExit3) {
  test::write_json(dir_.path("c.json"), test::tiny_training_config(dir_.root()));
  const std::string base = config_and_out();
  ASSERT_EQ(trainer(base + " --set train.max_steps=3").code, 0);
  auto r = trainer(base + " --resume --set model.n_layers=2");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("another model configuration"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nmt
