// Reads a text file, plain or gzip, one line at a time, checking as it goes
// that it is sentence-per-line UTF-8 text. Only one buffer of the file is
// ever in memory, so corpora of any size stream through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

// Longer lines are not sentences (a whole page scraped without line breaks).
constexpr size_t kMaxLineBytes = 65536;

// What a line longer than the reader's byte limit does.
enum class LongLines {
  kError,  // a DataError naming the file and line
  // Skipped without ever being held whole, and counted (skipped_lines()).
  // Still an error when such lines are more than kMaxSkippedLineShare of the
  // file, or when its first line never ends (a file without line breaks).
  kSkip,
};

// Over this share of a file's lines, long lines are not strays but a file
// that is not one sentence per line.
constexpr double kMaxSkippedLineShare = 0.01;

// How many skipped line numbers a reader (and FilterStats) keeps for its report.
constexpr size_t kSkippedLineExamples = 5;

class LineReader {
 public:
  // Opens path (gzip is recognised by its content, not its name). Throws
  // nmt::DataError naming the file when it is missing or unreadable.
  explicit LineReader(std::string path, size_t max_line_bytes = kMaxLineBytes,
                      LongLines long_lines = LongLines::kError);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its line end (LF or CRLF) and without a leading
  // byte-order mark; valid until the next call. False at the end of the file.
  // Throws nmt::DataError naming file and line for invalid UTF-8, a NUL byte
  // (binary data), a line over max_line_bytes (LongLines::kError), or a
  // damaged gzip stream. Under LongLines::kSkip a line over max_line_bytes
  // comes back empty with skipped() true; at the end of the file, too many
  // of them are a DataError.
  bool next(std::string_view& line);

  // 1-based number of the line last returned; after the end, the line count.
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

  // Whether the line last returned was over the byte limit and skipped.
  bool skipped() const { return skipped_; }
  // Lines skipped so far, and the numbers of the first kSkippedLineExamples.
  int64_t skipped_lines() const { return skipped_lines_; }
  const std::vector<int64_t>& first_skipped_lines() const { return first_skipped_; }

 private:
  bool refill();  // false at end of file
  std::string where() const;  // "FILE, line N"
  void check_line(std::string_view line) const;
  void skip_long_line(bool rest_unread);
  bool discard_rest_of_line();  // false when the file ends first
  void check_skipped_share() const;

  std::string path_;
  size_t max_line_bytes_;
  LongLines long_lines_;
  void* file_ = nullptr;  // gzFile; zlib stays out of this header
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;  // unread bytes are buffer_[begin_, end_)
  bool eof_ = false;
  int64_t line_number_ = 0;
  bool skipped_ = false;
  int64_t skipped_lines_ = 0;
  std::vector<int64_t> first_skipped_;
};

// "3, 17, 99" (and ", ..." when total says there were more).
std::string line_number_list(const std::vector<int64_t>& lines, int64_t total);

}  // namespace nmt::text
