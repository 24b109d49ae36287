// Reads a text file, plain or gzip, one line at a time, checking as it goes
// that it is sentence-per-line UTF-8 text. Only one buffer of the file is
// ever in memory, so corpora of any size stream through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::data {

// Longer lines are not sentences: such a file is refused rather than filtered.
constexpr size_t kMaxLineBytes = 65536;

class LineReader {
 public:
  // Opens path (gzip is recognised by its content, not its name). Throws
  // nmt::DataError naming the file when it is missing or unreadable.
  explicit LineReader(std::string path, size_t max_line_bytes = kMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its line end (LF or CRLF) and without a leading
  // byte-order mark; valid until the next call. False at the end of the file.
  // Throws nmt::DataError naming file and line for invalid UTF-8, a NUL byte
  // (binary data), a line over max_line_bytes, or a damaged gzip stream.
  bool next(std::string_view& line);

  // 1-based number of the line last returned; after the end, the line count.
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  bool refill();  // false at end of file
  std::string where() const;  // "FILE, line N"
  void check_line(std::string_view line) const;

  std::string path_;
  size_t max_line_bytes_;
  void* file_ = nullptr;  // gzFile; zlib stays out of this header
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;  // unread bytes are buffer_[begin_, end_)
  bool eof_ = false;
  int64_t line_number_ = 0;
};

// Offset of the first byte that is not valid UTF-8 (or is NUL) in text, or
// text.size() when all of it is valid.
size_t find_invalid_utf8(std::string_view text);

// Characters of UTF-8 text: every byte but continuation bytes starts one.
size_t count_code_points(std::string_view text);

}  // namespace nmt::data
