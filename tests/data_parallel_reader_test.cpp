// Reading two aligned files as pairs: misalignment names both files and
// their line counts; validation lines keep everything but over-long pairs.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "data/parallel_reader.h"
#include "tests/data_test_util.h"
#include "tests/test_support.h"
#include "text/line_reader.h"
#include "util/error.h"

namespace nmt::data {
namespace {

TEST(DataParallelReader, ValidationLinesLeaveOutPairsWithALongSide) {
  test::TempDir dir;
  std::string de, en;
  for (int i = 1; i <= 200; ++i) {
    de += "de " + std::to_string(i) + "\n";
    en += (i == 42 ? std::string(text::kMaxLineBytes + 10, 'e') : "en " + std::to_string(i)) + "\n";
  }
  test::write_file(dir.path("v.de"), de);
  test::write_file(dir.path("v.en"), en);
  const ParallelLines lines = read_parallel_lines(dir.path("v.de"), dir.path("v.en"));
  ASSERT_EQ(lines.src.size(), 199u);
  ASSERT_EQ(lines.ref.size(), 199u);
  EXPECT_EQ(lines.skipped_lines, std::vector<int64_t>{42});
  EXPECT_EQ(lines.src[41], "de 43");
  EXPECT_EQ(lines.ref[41], "en 43");
}

TEST(DataParallelReader, MisalignedFilesNameBothFilesAndCounts) {
  test::TempDir dir;
  test::write_file(dir.path("a.de"), "1\n2\n3\n");
  test::write_gz(dir.path("a.en.gz"), "1\n2\n3\n4\n5\n");
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] {
        ParallelReader r(dir.path("a.de"), dir.path("a.en.gz"));
        std::string_view s, t;
        while (r.next(s, t)) {
        }
      },
      {dir.path("a.de") + " (3 lines)", dir.path("a.en.gz") + " (5 lines)"}));
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_parallel_lines(dir.path("a.en.gz"), dir.path("a.de")); },
                                             {dir.path("a.en.gz") + " (5 lines)", dir.path("a.de") + " (3 lines)"}));
}

TEST(DataParallelReader, RawLinesKeepEverything) {
  test::TempDir dir;
  test::write_file(dir.path("v.de"), "Hallo\r\n\nWelt\n");
  test::write_file(dir.path("v.en"), "Hello\n\nWorld\n");
  const ParallelLines lines = read_parallel_lines(dir.path("v.de"), dir.path("v.en"));
  EXPECT_EQ(lines.src, (std::vector<std::string>{"Hallo", "", "Welt"}));
  EXPECT_EQ(lines.ref, (std::vector<std::string>{"Hello", "", "World"}));
}

}  // namespace
}  // namespace nmt::data
