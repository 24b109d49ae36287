// Source sentences for the benchmarks: the non-empty lines of a plain or .gz
// file, at most `limit` of them; a file without any is a DataError.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "text/line_reader.h"
#include "util/error.h"

namespace nmt::bench {

inline std::vector<std::string> read_sentences(const std::string& path,
                                               int64_t limit = std::numeric_limits<int64_t>::max()) {
  text::LineReader reader(path);
  std::vector<std::string> lines;
  std::string_view line;
  while (static_cast<int64_t>(lines.size()) < limit && reader.next(line)) {
    if (!line.empty()) lines.emplace_back(line);
  }
  if (lines.empty()) throw DataError("No sentences in " + path + ".");
  return lines;
}

}  // namespace nmt::bench
