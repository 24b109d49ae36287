// The checkpoint file: a round trip of every part, the weights-only read that
// the translator uses (the optimizer's section skipped, never held), and
// each kind of damage refused with a DataError naming the file.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data_test_util.h"
#include "storage/checkpoint.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

Checkpoint sample_checkpoint() {
  torch::manual_seed(3);
  Checkpoint c;
  c.config = {{"model", {{"d_model", 8}}}};
  c.weights["encoder.layer.weight"] = torch::randn({4, 8});
  c.weights["decoder.bias"] = torch::randn({8});
  c.state = {{"step", 42}, {"epoch", 2}};
  c.optimizer = std::string(100000, 'o');  // stands in for the optimizer's archive
  c.rng = {torch::randint(0, 255, {16}, torch::kByte)};
  return c;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The byte offset of `needle` (first occurrence) in the file: the optimizer's
// stand-in is 100,000 'o's, the only long run of them.
size_t offset_of(const std::string& bytes, const std::string& needle) {
  const size_t at = bytes.find(needle);
  EXPECT_NE(at, std::string::npos);
  return at;
}

TEST(Checkpoint, RoundTripKeepsEveryPart) {
  test::TempDir dir;
  const auto path = dir.path("c.pt");
  const Checkpoint c = sample_checkpoint();
  save_checkpoint(path, c);
  const Checkpoint back = load_checkpoint(path);
  EXPECT_EQ(back.config, c.config);
  EXPECT_EQ(back.state, c.state);
  EXPECT_EQ(back.step(), 42);
  EXPECT_EQ(back.optimizer, c.optimizer);
  ASSERT_EQ(back.rng.size(), 1u);
  EXPECT_TRUE(torch::equal(back.rng[0], c.rng[0]));
  ASSERT_EQ(back.weights.size(), c.weights.size());
  for (const auto& [name, t] : c.weights) EXPECT_TRUE(torch::equal(back.weights.at(name), t)) << name;
}

TEST(Checkpoint, WeightsOnlyReadSkipsTheOptimizerAndRngSections) {
  test::TempDir dir;
  const auto path = dir.path("c.pt");
  const Checkpoint c = sample_checkpoint();
  save_checkpoint(path, c);
  const Checkpoint back = load_checkpoint(path, CheckpointParts::kWeights);
  EXPECT_TRUE(back.optimizer.empty());
  EXPECT_TRUE(back.rng.empty());
  EXPECT_EQ(back.state, c.state);
  for (const auto& [name, t] : c.weights) EXPECT_TRUE(torch::equal(back.weights.at(name), t)) << name;
  // A damaged optimizer section does not stop a translation (its bytes are
  // not read), while resuming, which needs them, refuses the file.
  std::string bytes = read_bytes(path);
  bytes[offset_of(bytes, std::string(64, 'o')) + 10] = 'x';
  test::write_file(path, bytes);
  EXPECT_NO_THROW(load_checkpoint(path, CheckpointParts::kWeights));
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_checkpoint(path, CheckpointParts::kAll); },
                                          {path, "checksum mismatch in 'optimizer'"}));
}

TEST(Checkpoint, DamageIsADataErrorNamingTheFile) {
  test::TempDir dir;
  const auto path = dir.path("c.pt");
  save_checkpoint(path, sample_checkpoint());
  const std::string good = read_bytes(path);
  for (const auto parts : {CheckpointParts::kAll, CheckpointParts::kWeights}) {
    const auto load = [&] { load_checkpoint(path, parts); };
    // Cut inside the optimizer's section: its length runs past the end, even
    // when it is skipped.
    test::write_file(path, good.substr(0, offset_of(good, std::string(64, 'o')) + 500));
    EXPECT_TRUE(test::throws_with<DataError>(load, {path, "runs past the end of the file"}));
    test::write_file(path, good + "extra");
    EXPECT_TRUE(test::throws_with<DataError>(load, {path, "trailing bytes"}));
    test::write_file(path, good.substr(0, 12));
    EXPECT_TRUE(test::throws_with<DataError>(load, {path, "wrong magic bytes"}));
    test::write_file(path, "PK\x03\x04 a zip file, not a checkpoint of this program");
    EXPECT_TRUE(test::throws_with<DataError>(load, {path, "wrong magic bytes"}));
    std::string header_damaged = good;
    header_damaged[good.find("\"step\"") + 1] = 'S';
    test::write_file(path, header_damaged);
    EXPECT_TRUE(test::throws_with<DataError>(load, {path, "header checksum mismatch"}));
    // A header length of 2^62: checked against the file's size before anything is allocated.
    std::string huge_header = good;
    huge_header[8 + 7] = '\x40';
    test::write_file(path, huge_header);
    EXPECT_TRUE(test::throws_with<DataError>(load, {path, "header runs past the end of the file"}));
  }
}

TEST(Checkpoint, NewerFormatVersionIsRefusedWithAdvice) {
  test::TempDir dir;
  const auto path = dir.path("c.pt");
  save_checkpoint(path, sample_checkpoint());
  std::string bytes = read_bytes(path);
  const std::string version = "\"format_version\":" + std::to_string(kCheckpointFormatVersion);
  const size_t at = bytes.find(version);
  ASSERT_NE(at, std::string::npos);
  bytes[at + version.size() - 1] = '9';  // the header checksum is checked after the version
  test::write_file(path, bytes);
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_checkpoint(path, CheckpointParts::kAll); }, {path, "upgrade"}));
}

}  // namespace
}  // namespace nmt::storage
