// Models from elsewhere through the translator executable: a CTranslate2
// directory translated in place and imported, and the exit codes of bad use
// and bad files (docs/models_from_elsewhere.md).
#include <sys/wait.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data_test_util.h"
#include "tests/test_support.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

std::string translator() { return test::binary_dir() + "/translator"; }
std::string aren(const std::string& variant = "") {
  return test::fixtures_dir() + "/ctranslate2/v2/aren-transliteration" + variant;
}

class InteropCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(translator())) GTEST_SKIP() << "build the translator target first: " << translator();
  }
  // stdout and stderr apart: the translation alone on stdout.
  test::CommandResult run(const std::string& args, std::string* err = nullptr) {
    const std::string cmd = test::shell_quote(translator()) + " " + args + " > " + test::shell_quote(dir_.path("out")) +
                            " 2> " + test::shell_quote(dir_.path("err"));
    const int status = std::system(cmd.c_str());
    test::CommandResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = test::read_text(dir_.path("out"));
    if (err) *err = test::read_text(dir_.path("err"));
    return r;
  }
  test::TempDir dir_;
};

TEST_F(InteropCli, TranslatesACTranslate2DirectoryInPlaceAndImported) {
  std::string err;
  auto r = run("--model " + test::shell_quote(aren()) + " 'آ ت ز م و ن' 'آ ت ش ي س و ن'", &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_EQ(r.output, "a t z m o n\na c h i s o n\n");
  EXPECT_NE(err.find("CTranslate2's defaults"), std::string::npos) << err;

  const std::string out = dir_.path("imported");
  r = run("--import " + test::shell_quote(aren("-i8")) + " --out " + test::shell_quote(out), &err);
  EXPECT_EQ(r.code, 0) << err;
  for (const char* f : {"config.json", "vocab/vocab.json", "checkpoints/last.pt", "decoding.json"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
  r = run("--model " + test::shell_quote(out) + " --precision fp32 'آ ت ش ي س و ن'", &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_EQ(r.output, "a c h i s o n\n");

  // Never over an existing directory.
  r = run("--import " + test::shell_quote(aren()) + " --out " + test::shell_quote(out), &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find(out), std::string::npos) << err;
}

TEST_F(InteropCli, ScoresGivenTranslationsTokenByToken) {
  test::write_file(dir_.path("targets"), "a t z m o n\na c h i s o n\n");
  std::string err;
  const auto r = run("--model " + test::shell_quote(aren()) + " --precision fp32 --score-targets " +
                         test::shell_quote(dir_.path("targets")) + " 'آ ت ز م و ن' 'آ ت ش ي س و ن'",
                     &err);
  EXPECT_EQ(r.code, 0) << err;
  // CTranslate2's score_batch for the first pair, the end token last; the total first.
  const std::vector<double> expected = {-1.061749, -0.106023, -0.065410, -0.056002, -0.447953,
                                        -0.230714, -0.092184, -0.063463};
  std::istringstream first(r.output.substr(0, r.output.find('\n')));
  std::vector<double> got;
  std::string word;
  while (first >> word) {
    if (word != "|||") got.push_back(std::stod(word));
  }
  ASSERT_EQ(got.size(), expected.size()) << r.output;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 2e-6 * 8) << i;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;
  test::write_file(dir_.path("short"), "a t z m o n\n");
  EXPECT_EQ(run("--model " + test::shell_quote(aren()) + " --score-targets " + test::shell_quote(dir_.path("short")) +
                    " 'آ ت ز م و ن' 'آ ت ش ي س و ن'",
                &err)
                .code,
            3);
  EXPECT_NE(err.find("1 lines for 2 input lines"), std::string::npos) << err;
}

TEST_F(InteropCli, AnImportedModelFineTunesKeepingItsConventions) {
  const std::string trainer = test::binary_dir() + "/trainer";
  if (!fs::exists(trainer)) GTEST_SKIP() << "build the trainer target first";
  std::string err;
  const std::string imported = dir_.path("aren");
  ASSERT_EQ(run("--import " + test::shell_quote(aren()) + " --out " + test::shell_quote(imported), &err).code, 0) << err;
  // Its sources go in bare (CTranslate2's convention): so must the trainer's batches.
  const auto config = nlohmann::json::parse(test::read_text(imported + "/config.json"));
  EXPECT_EQ(config.at("model").at("source_bos"), false);
  EXPECT_EQ(config.at("model").at("source_eos"), false);
  std::string src, tgt;
  for (int i = 0; i < 8; ++i) {
    src += "آ ت ز م و ن\nآ ت ش ي س و ن\nآ ر ث ر\n";
    tgt += "a t z m o n\na c h i s o n\na r t h e r\n";
  }
  test::write_file(dir_.path("train.ar"), src);
  test::write_file(dir_.path("train.en"), tgt);
  test::write_file(dir_.path("tune.json"), nlohmann::json{
      {"data", {{"train_src", dir_.path("train.ar")}, {"train_tgt", dir_.path("train.en")}}},
      {"train", {{"batch_tokens", 200}, {"max_steps", 6}, {"lr", 1e-4}, {"schedule", "constant"}, {"threads", 1}}},
      {"checkpoint", {{"every_steps", 6}}}}.dump());
  const std::string tuned = dir_.path("tuned");
  const auto r = test::run_command(test::shell_quote(trainer) + " --config " + test::shell_quote(dir_.path("tune.json")) +
                                   " --init-from " + test::shell_quote(imported) + " --out " + test::shell_quote(tuned));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto out = run("--model " + test::shell_quote(tuned) + " --precision fp32 'آ ت ش ي س و ن'", &err);
  EXPECT_EQ(out.code, 0) << err;
  EXPECT_EQ(out.output, "a c h i s o n\n");
}

TEST_F(InteropCli, TranslatesAMarianFolderInPlaceAndImported) {
  const std::string marian = test::fixtures_dir() + "/marian/post_swish_tied_all";
  const auto expected = nlohmann::json::parse(test::read_text(test::fixtures_dir() + "/marian/expected.json"));
  std::string want;
  for (const auto& t : expected.at("variants").at("post_swish_tied_all").at("beam2").at(0).at("tokens")) {
    want += (want.empty() ? "" : " ") + t.get<std::string>();
  }
  const std::string search = " --precision fp32 --beam 2 --length-penalty 1 --min-length 1 --max-len-a 0 --max-len-b 20 'w1 w2 w3'";
  std::string err;
  auto r = run("--model " + test::shell_quote(marian) + search, &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_EQ(r.output, want + "\n");
  EXPECT_NE(err.find("Marian"), std::string::npos) << err;
  const std::string out = dir_.path("imported");
  r = run("--import " + test::shell_quote(marian) + " --out " + test::shell_quote(out), &err);
  ASSERT_EQ(r.code, 0) << err;
  EXPECT_EQ(nlohmann::json::parse(test::read_text(out + "/decoding.json")).at("engine"), "Marian");
  r = run("--model " + test::shell_quote(out) + search, &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_EQ(r.output, want + "\n");
  EXPECT_EQ(run("--model " + test::shell_quote(marian) + " --checkpoint x.pt 'w1'", &err).code, 2) << err;
  EXPECT_NE(err.find("a Marian model"), std::string::npos) << err;
}

TEST_F(InteropCli, AMultilingualMarianModelTranslatesIntoTheLanguageAskedFor) {
  const std::string marian = test::fixtures_dir() + "/marian/post_gelu_multilingual";
  const auto expected = nlohmann::json::parse(test::read_text(test::fixtures_dir() + "/marian/expected.json"));
  const auto& variant = expected.at("variants").at("post_gelu_multilingual");
  ASSERT_EQ(variant.at("sources").at(0).at(0), ">>deu<<");  // CTranslate2 was given the tag before the source
  std::string want;
  for (const auto& t : variant.at("beam2").at(0).at("tokens")) want += (want.empty() ? "" : " ") + t.get<std::string>();
  const std::string search = " --precision fp32 --beam 2 --length-penalty 1 --min-length 1 --max-len-a 0 --max-len-b 20 'w1 w2 w3'";
  std::string err;
  auto r = run("--model " + test::shell_quote(marian) + " --target-lang deu" + search, &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_EQ(r.output, want + "\n");
  // Another language's tag gives another translation; none asked for is bad use naming the choices.
  r = run("--model " + test::shell_quote(marian) + " --target-lang fra" + search, &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_NE(r.output, want + "\n");
  r = run("--model " + test::shell_quote(marian) + search, &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("deu"), std::string::npos) << err;
  EXPECT_NE(err.find("fra"), std::string::npos) << err;
  // The server needs the source language, which the folder does not name.
  EXPECT_EQ(run("--serve --port 0 --model " + test::shell_quote(marian), &err).code, 3);
  EXPECT_NE(err.find("data.src_lang"), std::string::npos) << err;
}

TEST_F(InteropCli, BadUseExitsTwoAndBadFilesThreeLeavingNothing) {
  std::string err;
  EXPECT_EQ(run("--import " + test::shell_quote(aren()), &err).code, 2) << err;
  EXPECT_EQ(run("--model " + test::shell_quote(aren()) + " --checkpoint x.pt 'آ'", &err).code, 2) << err;
  EXPECT_NE(err.find("CTranslate2"), std::string::npos) << err;

  // A damaged model.bin: exit 3 naming it, and no directory written.
  const std::string bad = dir_.path("bad");
  fs::create_directories(bad);
  for (const char* f : {"source_vocabulary.txt", "target_vocabulary.txt"}) fs::copy_file(aren() + "/" + f, bad + "/" + f);
  const std::string bytes = test::read_text(aren() + "/model.bin");
  test::write_file(bad + "/model.bin", bytes.substr(0, bytes.size() / 3));
  const std::string out = dir_.path("never");
  EXPECT_EQ(run("--import " + test::shell_quote(bad) + " --out " + test::shell_quote(out), &err).code, 3);
  EXPECT_NE(err.find(bad + "/model.bin"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(run("--model " + test::shell_quote(bad) + " 'آ'", &err).code, 3) << err;
  // The server needs a pair, which a CTranslate2 directory does not record.
  EXPECT_EQ(run("--serve --port 0 --model " + test::shell_quote(aren()), &err).code, 3);
  EXPECT_NE(err.find("does not say which languages"), std::string::npos) << err;
  // Neither ours nor another engine's.
  EXPECT_EQ(run("--import " + test::shell_quote(dir_.root()) + " --out " + test::shell_quote(out), &err).code, 3);
  EXPECT_NE(err.find("not a model this program can import"), std::string::npos) << err;
}

}  // namespace
}  // namespace nmt
