// Reading text files: plain and gzip, line ends, and every bad input a file
// can carry (docs/errors.md), each a DataError naming the file (and line).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/data_test_util.h"
#include "tests/test_support.h"
#include "text/line_reader.h"
#include "text/utf8.h"
#include "util/error.h"
#include "util/proc_status.h"

namespace nmt::text {
namespace {

std::vector<std::string> read_all(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) lines.emplace_back(line);
  return lines;
}

TEST(TextLineReader, PlainGzipCrlfBomAndMissingLastNewline) {
  test::TempDir dir;
  const std::string text = "\xEF\xBB\xBFone\r\ntwo\n\nthree\r\nfour";
  test::write_file(dir.path("a.txt"), text);
  test::write_gz(dir.path("a.gz"), text);
  test::write_file(dir.path("b.txt"), "");
  const std::vector<std::string> want = {"one", "two", "", "three", "four"};
  EXPECT_EQ(read_all(dir.path("a.txt")), want);
  EXPECT_EQ(read_all(dir.path("a.gz")), want);
  EXPECT_TRUE(read_all(dir.path("b.txt")).empty());
}

TEST(TextLineReader, LongFileAcrossBufferRefills) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "line number " + std::to_string(i) + " äöü\n";
  test::write_gz(dir.path("big.gz"), text);
  const auto lines = read_all(dir.path("big.gz"));
  ASSERT_EQ(lines.size(), 200000u);
  EXPECT_EQ(lines[123456], "line number 123456 äöü");
}

TEST(TextLineReader, MissingFile) {
  test::TempDir dir;
  EXPECT_TRUE(test::throws_with<DataError>([&] { LineReader r(dir.path("absent.txt")); },
                                           {dir.path("absent.txt"), "No such file"}));
  EXPECT_TRUE(test::throws_with<DataError>([&] { LineReader r(dir.root()); }, {dir.root(), "directory"}));
}

TEST(TextLineReader, InvalidUtf8NamesFileAndLine) {
  test::TempDir dir;
  test::write_file(dir.path("bad.txt"), "fine\nstill fine\nbroken \xC3\x28 here\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_all(dir.path("bad.txt")); },
                                           {dir.path("bad.txt"), "line 3", "UTF-8", "0xC3"}));
  // Overlong encodings and surrogates are not UTF-8 either.
  EXPECT_EQ(find_invalid_utf8("ok \xC0\xAF"), 3u);
  EXPECT_EQ(find_invalid_utf8("\xED\xA0\x80"), 0u);
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);
  EXPECT_EQ(find_invalid_utf8("Ĉu vi? 日本語 😀"), std::string("Ĉu vi? 日本語 😀").size());
}

TEST(TextLineReader, BinaryFile) {
  test::TempDir dir;
  std::string bytes =
      "\x7F"
      "ELF";
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  test::write_file(dir.path("a.out"), bytes);
  EXPECT_TRUE(
      test::throws_with<DataError>([&] { read_all(dir.path("a.out")); }, {dir.path("a.out"), "line 1", "binary"}));
}

TEST(TextLineReader, HundredThousandCharacterLine) {
  test::TempDir dir;
  test::write_file(dir.path("long.txt"), "short\n" + std::string(100000, 'x') + "\nshort\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_all(dir.path("long.txt")); },
                                           {dir.path("long.txt"), "line 2", "longer than"}));
  test::write_gz(dir.path("long.gz"), std::string(100000, 'x'));  // no line end at all
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_all(dir.path("long.gz")); },
                                           {dir.path("long.gz"), "line 1", "longer than"}));
}

// Under LongLines::kSkip: the long lines come back empty and flagged, the
// others untouched, and the first few line numbers are kept.
TEST(TextLineReader, SkipsAndCountsLinesOverTheLimit) {
  test::TempDir dir;
  std::string text;
  for (int i = 1; i <= 700; ++i) {
    const bool absurd = i == 50 || i == 120 || i == 699;
    text += (absurd ? std::string(100000 + i, 'x') : "line " + std::to_string(i)) + (i % 2 ? "\r\n" : "\n");
  }
  for (const std::string name : {"long.txt", "long.gz"}) {
    name == "long.txt" ? test::write_file(dir.path(name), text) : test::write_gz(dir.path(name), text);
    LineReader reader(dir.path(name), kMaxLineBytes, LongLines::kSkip);
    std::string_view line;
    std::vector<int64_t> skipped;
    int64_t lines = 0;
    while (reader.next(line)) {
      ++lines;
      if (reader.skipped()) {
        EXPECT_TRUE(line.empty());
        skipped.push_back(reader.line_number());
      } else {
        EXPECT_EQ(line, "line " + std::to_string(reader.line_number())) << name;
      }
    }
    EXPECT_EQ(lines, 700) << name;
    EXPECT_EQ(skipped, (std::vector<int64_t>{50, 120, 699})) << name;
    EXPECT_EQ(reader.skipped_lines(), 3) << name;
    EXPECT_EQ(reader.first_skipped_lines(), skipped) << name;
  }
  // A line exactly at the limit is kept, one byte more is skipped.
  test::write_file(dir.path("edge.txt"), std::string(kMaxLineBytes, 'y') + "\r\n" +
                                             std::string(kMaxLineBytes + 1, 'z') + "\n" + std::string(200, '\n'));
  LineReader edge(dir.path("edge.txt"), kMaxLineBytes, LongLines::kSkip);
  std::string_view line;
  ASSERT_TRUE(edge.next(line));
  EXPECT_FALSE(edge.skipped());
  EXPECT_EQ(line.size(), kMaxLineBytes);
  ASSERT_TRUE(edge.next(line));
  EXPECT_TRUE(edge.skipped());
}

// This process's peak RSS in MiB after resetting it to the current RSS (Linux:
// writing 5 to clear_refs), or -1.
double reset_peak_rss_mib() {
  std::ofstream("/proc/self/clear_refs") << "5";
  return proc_status_mib("VmHWM");
}

TEST(TextLineReader, SkippedLineIsNeverHeldWhole) {
  test::TempDir dir;
  const size_t huge = size_t{256} << 20;  // 256 MiB in one line; the gzip file is about 256 KiB
  std::string text = "before\n" + std::string(huge, 'x');
  text += "\nafter\n";
  for (int i = 0; i < 200; ++i) text += "filler\n";
  test::write_gz(dir.path("huge.gz"), text);
  text = std::string();
  text.shrink_to_fit();
  const double before = reset_peak_rss_mib();
  if (before < 0) GTEST_SKIP() << "no /proc/self/status here";
  LineReader reader(dir.path("huge.gz"), kMaxLineBytes, LongLines::kSkip);
  std::string_view line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line, "before");
  ASSERT_TRUE(reader.next(line));
  EXPECT_TRUE(reader.skipped());
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line, "after");
  EXPECT_EQ(reader.line_number(), 3);
  const double growth_mib = proc_status_mib("VmHWM") - before;  // the peak while reading
  EXPECT_LT(growth_mib, 32) << "reading past a 256 MiB line raised the peak by " << growth_mib << " MiB";
}

TEST(TextLineReader, TooManyLongLinesOrNoLineBreaksIsAnError) {
  test::TempDir dir;
  std::string text;
  for (int i = 1; i <= 150; ++i) text += (i == 7 || i == 9 ? std::string(70000, 'x') : "ok") + "\n";
  test::write_file(dir.path("many.txt"), text);
  const auto read_skipping = [&](const std::string& name) {
    LineReader reader(dir.path(name), kMaxLineBytes, LongLines::kSkip);
    std::string_view line;
    while (reader.next(line)) {
    }
  };
  // 2 of 150 is over 1%.
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] { read_skipping("many.txt"); },
      {dir.path("many.txt"), "2 of its 150 lines", "lines 7, 9", "one sentence per line"}));
  test::write_gz(dir.path("page.gz"), std::string(3 << 20, 'x'));  // no line break at all
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_skipping("page.gz"); }, {dir.path("page.gz"), "no line breaks"}));
  // One short line without a line end is a corpus of one sentence, not an error.
  test::write_file(dir.path("one.txt"), "Ein Satz.");
  EXPECT_EQ(read_all(dir.path("one.txt")), std::vector<std::string>{"Ein Satz."});
}

TEST(TextLineReader, GzipCutShort) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "sentence " + std::to_string(i * 7919) + "\n";
  test::write_gz(dir.path("full.gz"), text);
  std::ifstream in(dir.path("full.gz"), std::ios::binary);
  const std::string gz(std::istreambuf_iterator<char>(in), {});
  test::write_file(dir.path("cut.gz"), gz.substr(0, gz.size() / 2));
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_all(dir.path("cut.gz")); }, {dir.path("cut.gz"), "cut short"}));
  // Cut inside the trailer only (the CRC and length): still refused.
  test::write_file(dir.path("trailer.gz"), gz.substr(0, gz.size() - 3));
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_all(dir.path("trailer.gz")); }, {dir.path("trailer.gz")}));
}

}  // namespace
}  // namespace nmt::text
