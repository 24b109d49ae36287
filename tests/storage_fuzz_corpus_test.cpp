// The committed fuzz corpora of the checkpoint and state_dict readers
// (tests/fuzz/corpus/, with every input a fuzzer found a fault with: the
// regress_* files) replayed in the ordinary suite: each file is either read
// or refused with a DataError naming it, never another exception. Under
// scripts/fuzz.sh 0 the same files also run with AddressSanitizer.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "storage/checkpoint.h"
#include "storage/state_dict.h"
#include "tests/test_support.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpus(const std::string& target) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(test::source_dir() + "/tests/fuzz/corpus/" + target)) {
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

template <typename F>
void expect_read_or_data_error(const std::string& file, F&& read) {
  try {
    read();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": an exception other than DataError: " << e.what();
  }
}

TEST(FuzzCorpus, CheckpointInputsAreReadOrRefused) {
  const auto files = corpus("checkpoint");
  ASSERT_GE(files.size(), 2u);
  for (const auto& file : files) {
    expect_read_or_data_error(file, [&] { load_checkpoint(file, CheckpointParts::kAll); });
    expect_read_or_data_error(file, [&] { load_checkpoint(file, CheckpointParts::kWeights); });
  }
  EXPECT_FALSE(
      checkpoint_is_intact(test::source_dir() + "/tests/fuzz/corpus/checkpoint/regress_header_field_of_wrong_type"));
}

TEST(FuzzCorpus, StateDictInputsAreReadOrRefused) {
  const auto files = corpus("state_dict");
  ASSERT_GE(files.size(), 3u);
  for (const auto& file : files) {
    expect_read_or_data_error(file, [&] { state_dict_from_bytes(read_file_bytes(file), file); });
  }
  for (const std::string name :
       {"regress_zip_read_past_end", "regress_stream_reader_leak", "regress_memo_index_claims_gigabytes"}) {
    const std::string file = test::source_dir() + "/tests/fuzz/corpus/state_dict/" + name;
    EXPECT_THROW(state_dict_from_bytes(read_file_bytes(file), file), DataError) << name;
  }
}

}  // namespace
}  // namespace nmt::storage
