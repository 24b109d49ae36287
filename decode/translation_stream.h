// Translation of a stream of lines in bounded memory: reads a chunk of lines,
// translates it (the Translator sorts it by length into batches) and hands the
// results on in input order before reading the next chunk, so a file of any
// length runs with the memory of one chunk.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "decode/translation.h"
#include "text/line_reader.h"

namespace nmt::decode {

// Produces the next input line (without its line end); false at the end.
using LineSource = std::function<bool(std::string& line)>;
// Receives each line's translation, index 0-based, in input order.
using TranslationSink = std::function<void(int64_t index, const SentenceTranslation& translation)>;

struct StreamReport {
  int64_t lines = 0;
  std::vector<int64_t> invalid_lines;  // 1-based numbers of lines that were not UTF-8
  int64_t truncated_lines = 0;         // sources cut to the model's max_len
};

StreamReport translate_stream(Translator& translator, const LineSource& source, int64_t chunk_lines,
                              const TranslationSink& sink);

// Lines of a stream; strips a trailing CR and the byte-order mark of line 1.
// A line longer than max_line_bytes is kept to its first max_line_bytes
// (ending on a whole UTF-8 character) and the rest is read past without
// being held: the model truncates sources to its max_len tokens anyway, far
// fewer, so the translation is that of the line's beginning either way, and
// a line without breaks cannot take the memory.
LineSource istream_lines(std::istream& in, size_t max_line_bytes = text::kMaxLineBytes);
// The strings of `lines`, one each (the vector must outlive the source).
LineSource vector_lines(const std::vector<std::string>& lines);

}  // namespace nmt::decode
