// DIR/lengths.json: quantiles of known length distributions, the ratio
// spread, openers and final marks counted per side, a round trip through the
// file, and clear errors for another format version or values out of range.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "storage/length_profile.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

std::string piece(int32_t id) {
  static const std::vector<std::string> names = {"<pad>", "\xE2\x96\x81The", "\xE2\x96\x81" "cat", ".",
                                                 "\xE2\x96\x81", "\xE2\x96\x81sits"};
  return names.at(static_cast<size_t>(id));
}

TEST(LengthProfile, QuantilesRatiosOpenersAndMarksOfKnownPairs) {
  LengthProfileBuilder b;
  for (int64_t n = 1; n <= 100; ++n) b.add(n, 2 * n);  // source 1..100, target twice as long
  // 100 sentences "The cat sits ." and 30 "cat sits The .": "▁The" opens 100 of its 130.
  for (int k = 0; k < 100; ++k) b.add_ids({1, 2, 5, 3}, {1, 2, 5, 3});
  for (int k = 0; k < 30; ++k) b.add_ids({2, 5, 1, 3}, {4, 2, 3});  // a bare "▁" opens these targets
  const LengthProfile p = b.finish(piece, piece);
  EXPECT_EQ(p.pairs, 100);
  EXPECT_DOUBLE_EQ(p.source.median, 50);
  EXPECT_DOUBLE_EQ(p.source.p95, 95);
  EXPECT_DOUBLE_EQ(p.source.p99, 99);
  EXPECT_DOUBLE_EQ(p.source.max, 100);
  EXPECT_DOUBLE_EQ(p.target.p99, 198);
  EXPECT_DOUBLE_EQ(p.ratio.p1, 2.0);
  EXPECT_DOUBLE_EQ(p.ratio.p99, 2.0);
  EXPECT_EQ(p.max_piece_tokens(), 99);
  EXPECT_EQ(p.source_openers, (std::vector<std::string>{"\xE2\x96\x81The"}));
  EXPECT_EQ(p.target_openers, (std::vector<std::string>{"\xE2\x96\x81The"}));  // a bare "▁" is no opener
  EXPECT_EQ(p.source_final_mark, ".");
}

TEST(LengthProfile, RoundTripsThroughTheFileAndRefusesWhatItCannotUse) {
  test::TempDir dir;
  const std::string path = dir.path("lengths.json");
  EXPECT_FALSE(read_length_profile(path).has_value());  // absent: today's behaviour
  LengthProfile p;
  p.pairs = 20000;
  p.source = {10, 16, 20, 23};
  p.target = {11, 17, 21, 25};
  p.ratio = {0.75, 0.85, 1.0, 1.22, 1.33};
  p.source_openers = {"\xE2\x96\x81The", "\xE2\x96\x81" "A"};
  p.target_openers = {"\xE2\x96\x81" "Die"};
  p.source_final_mark = ".";
  p.target_final_mark = ".";
  p.coverage_threshold = 0.345;
  p.coverage_sentences = 200;
  write_length_profile(path, p);
  const auto back = read_length_profile(path);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->pairs, p.pairs);
  EXPECT_DOUBLE_EQ(back->source.p99, 20);
  EXPECT_DOUBLE_EQ(back->ratio.p1, 0.75);
  EXPECT_EQ(back->source_openers, p.source_openers);
  EXPECT_EQ(back->target_openers, p.target_openers);
  EXPECT_EQ(back->target_final_mark, ".");
  EXPECT_DOUBLE_EQ(back->coverage_threshold, 0.345);
  EXPECT_EQ(back->max_piece_tokens(), 20);

  std::string text = test::read_text(path);
  text.replace(text.find("\"format_version\": 1"), 19, "\"format_version\": 2");
  std::ofstream(path) << text;
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_length_profile(path); }, {path, "format version 2"}));
  p.coverage_threshold = 3;
  write_length_profile(path, p);
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_length_profile(path); }, {path, "out of range"}));
  std::ofstream(path) << "{\"format_version\": 1}";
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_length_profile(path); }, {path, "Cannot read"}));
}

}  // namespace
}  // namespace nmt::storage
