// Translation of a stream of lines in bounded memory: reads a chunk of lines,
// translates it (the Translator sorts it by length into batches) and hands the
// results on in input order before reading the next chunk, so a file of any
// length runs with the memory of one chunk.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "decode/checked_translation.h"
#include "decode/translation.h"
#include "text/line_reader.h"

namespace nmt::decode {

// Produces the next input line (without its line end); false at the end.
using LineSource = std::function<bool(std::string& line)>;
// Receives each line's translation, index 0-based, in input order.
using TranslationSink = std::function<void(int64_t index, const LineTranslation& translation)>;

struct StreamReport {
  int64_t lines = 0;
  std::vector<int64_t> invalid_lines;  // 1-based numbers of lines that were not UTF-8
  int64_t sentences = 0;               // sentences of all lines (a line is one unless split)
  int64_t long_sentences = 0;          // of them, longer than the model takes: translated in pieces
  int64_t pieces = 0;                  // sources the model translated
  CoverageTally coverage;              // what the coverage check found (decode/checked_translation.h)
  std::vector<int64_t> failed_lines;   // 1-based numbers of lines with a piece that still fails it
};

StreamReport translate_stream(Translator& translator, const LineSource& source, int64_t chunk_lines,
                              const TranslationSink& sink);

// Lines of a stream; strips a trailing CR and the byte-order mark of line 1.
// A line longer than max_line_bytes is kept to its first max_line_bytes
// (ending on a whole UTF-8 character) and the rest is read past without
// being held, so that a file without line breaks cannot take the memory; the
// 1-based numbers of such lines go to `cut_lines` (when given) for the caller
// to report.
LineSource istream_lines(std::istream& in, size_t max_line_bytes = text::kMaxLineBytes,
                         std::vector<int64_t>* cut_lines = nullptr);
// The strings of `lines`, one each (the vector must outlive the source).
LineSource vector_lines(const std::vector<std::string>& lines);

}  // namespace nmt::decode
