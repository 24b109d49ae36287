#include "text/line_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "text/utf8.h"
#include "util/error.h"

namespace nmt::text {
namespace {

constexpr size_t kInitialBuffer = 1 << 20;

gzFile as_gz(void* f) { return static_cast<gzFile>(f); }

std::string hex_byte(unsigned char c) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%02X", c);
  return s;
}

}  // namespace


std::string line_number_list(const std::vector<int64_t>& lines, int64_t total) {
  std::string s;
  for (int64_t n : lines) s += (s.empty() ? "" : ", ") + std::to_string(n);
  if (total > static_cast<int64_t>(lines.size())) s += ", ...";
  return s;
}

LineReader::LineReader(std::string path, size_t max_line_bytes, LongLines long_lines)
    : path_(std::move(path)), max_line_bytes_(max_line_bytes), long_lines_(long_lines) {
  std::error_code ec;
  if (std::filesystem::is_directory(path_, ec)) {
    throw DataError("Cannot read " + path_ + ": it is a directory, not a text file.");
  }
  errno = 0;
  file_ = gzopen(path_.c_str(), "rb");
  if (file_ == nullptr) {
    const int err = errno;
    throw DataError("Cannot open " + path_ + ": " +
                    (err != 0 ? std::strerror(err) : "not enough memory") + ".");
  }
  gzbuffer(as_gz(file_), 1 << 18);
  buffer_.resize(std::max(kInitialBuffer, max_line_bytes_ + 2));
}

LineReader::~LineReader() {
  if (file_ != nullptr) gzclose(as_gz(file_));
}

std::string LineReader::where() const { return path_ + ", line " + std::to_string(line_number_); }

bool LineReader::refill() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const size_t want = std::min<size_t>(buffer_.size() - end_, 1u << 30);
  const int got = gzread(as_gz(file_), buffer_.data() + end_, static_cast<unsigned>(want));
  int errnum = Z_OK;
  const char* message = gzerror(as_gz(file_), &errnum);
  if (got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
    const bool truncated = errnum == Z_BUF_ERROR;
    throw DataError("Cannot read " + path_ + " after line " + std::to_string(line_number_) + ": " +
                    (truncated ? std::string("the gzip file is cut short (unexpected end of file)")
                               : std::string(errnum == Z_ERRNO ? std::strerror(errno) : message)) +
                    ".");
  }
  end_ += static_cast<size_t>(got);
  return got > 0;
}

void LineReader::check_line(std::string_view line) const {
  const size_t bad = find_invalid_utf8(line);
  if (bad == line.size()) return;
  const auto byte = static_cast<unsigned char>(line[bad]);
  if (byte == 0) {
    throw DataError(where() + ": NUL byte at byte " + std::to_string(bad + 1) +
                    "; this looks like a binary file, not text.");
  }
  throw DataError(where() + ": invalid UTF-8 (byte " + hex_byte(byte) + " at byte " +
                  std::to_string(bad + 1) + " of the line); the corpus must be UTF-8 text.");
}

bool LineReader::next(std::string_view& line) {
  skipped_ = false;
  bool too_long = false, rest_unread = false;
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const size_t pending = end_ - begin_;
    if (const void* nl = std::memchr(start, '\n', pending)) {
      const size_t len = static_cast<const char*>(nl) - start;
      line = std::string_view(start, len);
      begin_ += len + 1;
      too_long = len > max_line_bytes_ + 1;  // +1: a CR before the LF
      break;
    }
    if (pending > max_line_bytes_ + 1) {
      too_long = rest_unread = true;  // no need to read the rest of it
      break;
    }
    if (eof_) {
      if (pending == 0) {
        check_skipped_share();
        return false;
      }
      line = std::string_view(start, pending);  // last line without a line end
      begin_ = end_;
      break;
    }
    eof_ = !refill();
  }
  ++line_number_;
  if (!too_long && !line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (too_long || line.size() > max_line_bytes_) {
    skip_long_line(rest_unread);
    line = std::string_view();
    return true;
  }
  if (line_number_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  check_line(line);
  return true;
}

void LineReader::skip_long_line(bool rest_unread) {
  const std::string limit = std::to_string(max_line_bytes_) + " bytes";
  if (long_lines_ == LongLines::kError) {
    throw DataError(where() + ": the line is longer than " + limit + "; a corpus needs one sentence per line.");
  }
  if (rest_unread && !discard_rest_of_line() && line_number_ == 1) {
    throw DataError(path_ + " has no line breaks: its only line is longer than " + limit +
                    "; a corpus needs one sentence per line.");
  }
  skipped_ = true;
  ++skipped_lines_;
  if (first_skipped_.size() < kSkippedLineExamples) first_skipped_.push_back(line_number_);
}

bool LineReader::discard_rest_of_line() {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    if (const void* nl = std::memchr(start, '\n', end_ - begin_)) {
      begin_ += static_cast<const char*>(nl) - start + 1;
      return true;
    }
    begin_ = end_;  // the buffer never holds more than one refill of the line
    if (eof_) return false;
    eof_ = !refill();
  }
}

void LineReader::check_skipped_share() const {
  if (skipped_lines_ == 0) return;
  if (static_cast<double>(skipped_lines_) <= kMaxSkippedLineShare * static_cast<double>(line_number_)) return;
  const std::string which =
      (skipped_lines_ == 1 ? "line " : "lines ") + line_number_list(first_skipped_, skipped_lines_);
  throw DataError(path_ + ": " + std::to_string(skipped_lines_) + " of its " + std::to_string(line_number_) +
                  " lines are longer than " + std::to_string(max_line_bytes_) + " bytes (" + which + "); more than " +
                  std::to_string(static_cast<int>(kMaxSkippedLineShare * 100)) +
                  "% is not a few stray lines: a corpus needs one sentence per line.");
}

}  // namespace nmt::text
