// scripts/get_data.sh: every file checked against its SHA-256 before it is
// written under its name; a changed file is refused, naming it, and nothing
// is left for it. Run offline with --from, on files made here (the real
// Multi30k files are not part of the checkout).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/data_test_util.h"
#include "tests/test_support.h"

namespace nmt::test {
namespace {

namespace fs = std::filesystem;

std::string script() { return source_dir() + "/scripts/get_data.sh"; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class GetData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("get_data");
    src_ = dir_ + "/mirror";
    dest_ = dir_ + "/data";
    fs::create_directories(src_);
  }

  // Source files of our own and a sums file listing them, in sha256sum's format.
  void make_own_data_set(const std::vector<std::string>& names) {
    for (const auto& name : names) write_file(src_ + "/" + name, "the content of " + name + "\n");
    std::string list;
    for (const auto& name : names) list += " " + shell_quote(name);
    const auto r = run_command("cd " + shell_quote(src_) + " && sha256sum" + list + " > ../own.sha256");
    ASSERT_EQ(r.code, 0) << r.output;
    sums_ = dir_ + "/own.sha256";
  }

  CommandResult get(const std::string& args) {
    const std::string env = sums_.empty() ? "" : "NMT_GET_DATA_SUMS=" + shell_quote(sums_) + " ";
    return run_command(env + shell_quote(script()) + " multi30k --from " + shell_quote(src_) + " " + args + " " +
                       shell_quote(dest_));
  }

  std::string dir_, src_, dest_, sums_;
};

TEST_F(GetData, RefusesAFileWhoseSumDiffersFromTheCommittedOne) {
  // Every name Multi30k has, but not its bytes: the committed sums catch the first.
  std::ifstream committed(source_dir() + "/scripts/multi30k.sha256");
  std::string sum, name, first;
  int files = 0;
  while (committed >> sum >> name) {
    ASSERT_EQ(sum.size(), 64u) << name;
    if (first.empty()) first = name;
    write_file(src_ + "/" + name, "not Multi30k\n");
    ++files;
  }
  EXPECT_EQ(files, 22) << "train and val in 4 languages, 14 test-set files";
  const auto r = get("");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, first + " from " + src_ + " has SHA-256 ")) << r.output;
  EXPECT_TRUE(contains(r.output, "nothing was written for it")) << r.output;
  EXPECT_FALSE(fs::exists(dest_ + "/" + first));
  EXPECT_FALSE(fs::exists(dest_ + "/." + first + ".part"));
}

TEST_F(GetData, CopiesCheckedFilesAndKeepsThemOnASecondRun) {
  make_own_data_set({"train.de.gz", "train.en.gz", "val.de.gz", "val.en.gz"});
  auto r = get("");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "4 files fetched, 0 already there")) << r.output;
  for (const auto& name : {"train.de.gz", "train.en.gz", "val.de.gz", "val.en.gz"}) {
    EXPECT_EQ(read_text(dest_ + "/" + name), read_text(src_ + "/" + name)) << name;
  }
  r = get("");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "0 files fetched, 4 already there")) << r.output;

  // A damaged copy in the destination is fetched again.
  write_file(dest_ + "/val.en.gz", "damaged\n");
  r = get("");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, dest_ + "/val.en.gz has another SHA-256")) << r.output;
  EXPECT_EQ(read_text(dest_ + "/val.en.gz"), read_text(src_ + "/val.en.gz"));
}

TEST_F(GetData, ACorruptedSourceFileIsRefusedWhileTheOthersStayWhole) {
  make_own_data_set({"train.de.gz", "train.en.gz", "val.de.gz", "val.en.gz"});
  std::ofstream(src_ + "/val.de.gz", std::ios::app) << "one more line\n";
  const auto r = get("");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "val.de.gz from " + src_ + " has SHA-256")) << r.output;
  EXPECT_FALSE(fs::exists(dest_ + "/val.de.gz"));
  EXPECT_FALSE(fs::exists(dest_ + "/.val.de.gz.part"));
  // The files before it in the list were checked and written whole.
  EXPECT_EQ(read_text(dest_ + "/train.en.gz"), read_text(src_ + "/train.en.gz"));
}

TEST_F(GetData, AMissingTrainingFileFailsAndAMissingTestSetIsSkipped) {
  make_own_data_set({"test_2016_flickr.de.gz", "train.de.gz", "train.en.gz"});
  fs::remove(src_ + "/test_2016_flickr.de.gz");
  auto r = get("");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "skipped 1 test-set files")) << r.output;
  EXPECT_TRUE(contains(r.output, "test_2016_flickr.de.gz")) << r.output;

  fs::remove(src_ + "/train.en.gz");
  fs::remove(dest_ + "/train.en.gz");
  r = get("");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "train.en.gz is not in " + src_)) << r.output;
}

TEST_F(GetData, BadUsageSaysSo) {
  auto r = run_command(shell_quote(script()) + " wmt14");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.output, "unknown data set 'wmt14' (known: multi30k)")) << r.output;
  r = run_command(shell_quote(script()) + " multi30k --from " + shell_quote(dir_ + "/nowhere"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.output, "is not a folder")) << r.output;
}

}  // namespace
}  // namespace nmt::test
