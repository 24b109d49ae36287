// The id cache file: written in a stream, mapped back, and refused (so
// rebuilt) when its key differs or it is damaged.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/encoded_corpus.h"
#include "data_test_util.h"

namespace nmt::data {
namespace {

std::vector<std::vector<int32_t>> sample_side(int n, int32_t base) {
  std::vector<std::vector<int32_t>> side;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> ids;
    for (int k = 0; k < 1 + (i * 7) % 13; ++k) ids.push_back(base + i * 31 + k);
    side.push_back(ids);
  }
  return side;
}

class EncodedCorpusTest : public ::testing::TestWithParam<int> {};

TEST_P(EncodedCorpusTest, WriteThenMapRoundTrip) {
  const int token_bytes = GetParam();
  const int32_t base = token_bytes == 2 ? 4 : 70000;  // ids beyond 16 bits need 4 bytes
  test::TempDir dir;
  const auto src = sample_side(101, base), tgt = sample_side(101, base + 5);
  FilterStats stats;
  stats.read = 120;
  stats.kept = 101;
  stats.empty = 19;
  stats.rules = {50, 2.5};
  const std::string path = dir.path("c.ids");
  {
    EncodedCorpusWriter w(path, 42, token_bytes);
    for (size_t i = 0; i < src.size(); ++i) w.add(src[i], tgt[i]);
    w.finish(stats);
  }
  auto c = EncodedCorpus::open(path, 42);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->size(), 101);
  for (int64_t i = 0; i < c->size(); ++i) {
    EXPECT_EQ(c->src(i), src[static_cast<size_t>(i)]);
    EXPECT_EQ(c->tgt(i), tgt[static_cast<size_t>(i)]);
  }
  EXPECT_EQ(c->stats().empty, 19);
  EXPECT_EQ(c->stats().rules.max_len, 50);
  EXPECT_DOUBLE_EQ(c->stats().rules.max_len_ratio, 2.5);
  EXPECT_EQ(c->key(), 42u);
  // No spill or temporary files are left beside it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.root())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

INSTANTIATE_TEST_SUITE_P(TokenWidths, EncodedCorpusTest, ::testing::Values(2, 4));

TEST(DataEncodedCorpus, OtherKeyOrDamagedFileIsRefused) {
  test::TempDir dir;
  const std::string path = dir.path("c.ids");
  {
    EncodedCorpusWriter w(path, 7, 2);
    w.add({5, 6, 7}, {8, 9});
    w.finish({});
  }
  EXPECT_TRUE(EncodedCorpus::open(path, 7));
  EXPECT_FALSE(EncodedCorpus::open(path, 8));
  EXPECT_FALSE(EncodedCorpus::open(dir.path("absent.ids"), 7));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
  EXPECT_FALSE(EncodedCorpus::open(path, 7));
  test::write_file(path, "garbage");
  EXPECT_FALSE(EncodedCorpus::open(path, 7));
}

TEST(DataEncodedCorpus, UnfinishedWriterLeavesNothing) {
  test::TempDir dir;
  {
    EncodedCorpusWriter w(dir.path("c.ids"), 7, 2);
    w.add({5}, {6});
  }  // destroyed without finish(), as when encoding throws
  EXPECT_TRUE(std::filesystem::is_empty(dir.root()));
}

}  // namespace
}  // namespace nmt::data
