#include "decode/translation_stream.h"

#include <memory>

#include "text/utf8.h"
#include "util/error.h"

namespace nmt::decode {

StreamReport translate_stream(Translator& translator, const LineSource& source, int64_t chunk_lines,
                              const TranslationSink& sink) {
  if (chunk_lines < 1) throw UsageError("The chunk size must be at least one line.");
  StreamReport report;
  std::vector<std::string> chunk;
  std::string line;
  bool more = true;
  while (more) {
    chunk.clear();
    while (static_cast<int64_t>(chunk.size()) < chunk_lines && (more = source(line))) chunk.push_back(line);
    if (chunk.empty()) break;
    const auto results = translator.translate(chunk);
    for (size_t i = 0; i < results.size(); ++i) {
      const int64_t index = report.lines + static_cast<int64_t>(i);
      const LinePlan& plan = results[i].plan;
      if (plan.invalid_utf8) report.invalid_lines.push_back(index + 1);
      report.sentences += plan.sentences;
      report.long_sentences += plan.long_sentences;
      report.pieces += static_cast<int64_t>(plan.pieces.size());
      const CoverageTally before = report.coverage;
      report.coverage.add(plan, translator.options().coverage);
      if (report.coverage.uncovered_pieces + report.coverage.length_limited >
          before.uncovered_pieces + before.length_limited) {
        report.failed_lines.push_back(index + 1);
      }
      sink(index, results[i]);
    }
    report.lines += static_cast<int64_t>(results.size());
  }
  return report;
}

namespace {

// One line of `in` into `line` (cleared first), at most max_bytes of it; the
// rest of a longer line is consumed and dropped, and `cut` says so. False at
// the end of input.
bool read_bounded_line(std::istream& in, std::string& line, size_t max_bytes, bool& cut) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  cut = false;
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) break;
    any = true;
    if (c == '\n') break;
    if (line.size() < max_bytes) {
      line.push_back(static_cast<char>(c));
    } else {
      cut = true;
    }
  }
  if (cut) {
    // Drop a character split by the cut: its lead byte and continuation bytes.
    size_t end = line.size();
    while (end > 0 && (static_cast<unsigned char>(line[end - 1]) & 0xC0) == 0x80) --end;
    if (end > 0 && static_cast<unsigned char>(line[end - 1]) >= 0xC0 &&
        text::find_invalid_utf8(std::string_view(line).substr(end - 1)) != line.size() - end + 1) {
      line.resize(end - 1);
    }
  }
  return any;
}

}  // namespace

LineSource istream_lines(std::istream& in, size_t max_line_bytes, std::vector<int64_t>* cut_lines) {
  auto number = std::make_shared<int64_t>(0);  // of the last line read
  return [&in, number, max_line_bytes, cut_lines](std::string& line) {
    bool cut = false;
    if (!read_bounded_line(in, line, max_line_bytes, cut)) {
      if (in.bad()) throw DataError("Reading the input failed after line " + std::to_string(*number) + ".");
      return false;
    }
    const bool first = ++*number == 1;
    if (cut && cut_lines) cut_lines->push_back(*number);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    return true;
  };
}

LineSource vector_lines(const std::vector<std::string>& lines) {
  auto next = std::make_shared<size_t>(0);
  return [&lines, next](std::string& line) {
    if (*next >= lines.size()) return false;
    line = lines[(*next)++];
    return true;
  };
}

}  // namespace nmt::decode
