// A model trained here on the bundled sample corpus (configs/sample.json,
// about a minute and a half), shared by the tests that need real
// translations: ctest runs each case in a process of its own, so it is
// trained once per build of the trainer, under a lock, and reused.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/data_test_util.h"
#include "tests/test_support.h"

namespace nmt::test {

inline std::string sample_model_dir() { return binary_dir() + "/test_models/long_input_sample"; }

// Trains the sample model unless this build's trainer already did; whether it is there.
inline bool train_sample_model() {
  namespace fs = std::filesystem;
  const std::string model = sample_model_dir();
  fs::create_directories(fs::path(model).parent_path());
  const int lock = ::open((model + ".lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock >= 0) ::flock(lock, LOCK_EX);
  const std::string trainer = binary_dir() + "/trainer";
  const std::string stamp = std::to_string(fs::file_size(trainer)) + " " +
                            std::to_string(fs::last_write_time(trainer).time_since_epoch().count());
  const std::string stamp_file = model + "/trained_by";
  bool trained = fs::exists(stamp_file) && read_text(stamp_file) == stamp;
  if (!trained) {
    std::error_code ec;
    fs::remove_all(model, ec);
    const auto r = run_command("cd " + shell_quote(source_dir()) + " && " + shell_quote(trainer) +
                               " --config configs/sample.json --out " + shell_quote(model));
    trained = r.code == 0;
    if (trained) std::ofstream(stamp_file) << stamp;
    if (!trained) std::cerr << r.output;
  }
  if (lock >= 0) ::close(lock);
  return trained;
}

// What the translator made of some lines on the sample model.
struct SampleRun {
  std::vector<std::string> lines;  // the output file's lines (none when it failed)
  std::string log;                 // standard output and error
  int code = 0;
};

// `lines` through `translator --model SAMPLE --input ... --output ... FLAGS`,
// the files in `dir`.
inline SampleRun translate_sample(const TempDir& dir, const std::vector<std::string>& lines, const std::string& flags) {
  std::string input;
  for (const auto& l : lines) input += l + "\n";
  std::ofstream(dir.path("in.txt")) << input;
  const auto r = run_command(shell_quote(binary_dir() + "/translator") + " --model " + shell_quote(sample_model_dir()) +
                             " --input " + shell_quote(dir.path("in.txt")) + " --output " +
                             shell_quote(dir.path("out.txt")) + " " + flags);
  SampleRun out{{}, r.output, r.code};
  if (r.code == 0) {
    std::istringstream text(read_text(dir.path("out.txt")));
    for (std::string line; std::getline(text, line);) out.lines.push_back(line);
  }
  return out;
}

// A suite on the trained sample model, with a scratch folder of its own.
class SampleModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    trained_ = train_sample_model();
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(trained_) << "the sample model did not train"; }

  static inline TempDir* dir_ = nullptr;
  static inline bool trained_ = false;
};

}  // namespace nmt::test
