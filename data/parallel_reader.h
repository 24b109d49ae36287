// Reads two aligned files in lockstep: line i of one translates line i of
// the other. A different number of lines is an error, found at the end.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text/line_reader.h"

namespace nmt::data {

class ParallelReader {
 public:
  ParallelReader(const std::string& src_path, const std::string& tgt_path,
                 size_t max_line_bytes = text::kMaxLineBytes, text::LongLines long_lines = text::LongLines::kError);

  // The next pair; both views stay valid until the next call. False after
  // the last pair. Throws nmt::DataError naming both files and both line
  // counts when one file ends before the other (and whatever LineReader throws).
  bool next(std::string_view& src, std::string_view& tgt);

  // 1-based number of the pair last returned.
  int64_t line_number() const { return src_.line_number(); }
  // Whether a side of the pair last returned was over the byte limit and
  // skipped (LongLines::kSkip): the pair is then to be dropped.
  bool skipped() const { return src_.skipped() || tgt_.skipped(); }
  const std::string& src_path() const { return src_.path(); }
  const std::string& tgt_path() const { return tgt_.path(); }

 private:
  [[noreturn]] void report_misalignment(text::LineReader& longer);

  text::LineReader src_, tgt_;
};

// Every line of two aligned files, as text (line ends removed): the
// validation sources to translate and references to score. Pairs with a side
// over the byte limit are left out (as the validation id cache leaves them
// out) and their line numbers kept.
struct ParallelLines {
  std::vector<std::string> src, ref;
  std::vector<int64_t> skipped_lines;
};
ParallelLines read_parallel_lines(const std::string& src_path, const std::string& tgt_path);

}  // namespace nmt::data
