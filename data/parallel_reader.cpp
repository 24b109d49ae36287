#include "data/parallel_reader.h"

#include "util/error.h"

namespace nmt::data {

ParallelReader::ParallelReader(const std::string& src_path, const std::string& tgt_path,
                               size_t max_line_bytes, text::LongLines long_lines)
    : src_(src_path, max_line_bytes, long_lines), tgt_(tgt_path, max_line_bytes, long_lines) {}

bool ParallelReader::next(std::string_view& src, std::string_view& tgt) {
  const bool has_src = src_.next(src);
  const bool has_tgt = tgt_.next(tgt);
  if (has_src && has_tgt) return true;
  if (!has_src && !has_tgt) return false;
  report_misalignment(has_src ? src_ : tgt_);
}

void ParallelReader::report_misalignment(text::LineReader& longer) {
  std::string_view ignored;
  while (longer.next(ignored)) {
  }
  throw DataError("The parallel files " + src_.path() + " (" + std::to_string(src_.line_number()) +
                  " lines) and " + tgt_.path() + " (" + std::to_string(tgt_.line_number()) +
                  " lines) have different line counts; line i of one must translate line i of the other.");
}

ParallelLines read_parallel_lines(const std::string& src_path, const std::string& tgt_path) {
  ParallelReader reader(src_path, tgt_path, text::kMaxLineBytes, text::LongLines::kSkip);
  ParallelLines lines;
  std::string_view src, tgt;
  while (reader.next(src, tgt)) {
    if (reader.skipped()) {
      lines.skipped_lines.push_back(reader.line_number());
      continue;
    }
    lines.src.emplace_back(src);
    lines.ref.emplace_back(tgt);
  }
  return lines;
}

}  // namespace nmt::data
