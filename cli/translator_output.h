// Where translations go: standard output, or a file that appears only when
// complete (written to a temporary file beside it, renamed on commit; removed
// when the run fails), so no partial output is ever left looking finished.
#pragma once

#include <fstream>
#include <ostream>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt::decode {
struct LineTranslation;
struct StreamReport;
}  // namespace nmt::decode

namespace nmt::cli {

// Line numbers for a message: "3, 5, 9", the first ten, then ", ...".
std::string line_numbers(const std::vector<int64_t>& lines);

// On standard error, when there is something to say: sentences split from
// paragraphs, sentences longer than a piece (`max_piece_tokens`), and what
// the coverage check found, counted.
void print_summary(const decode::StreamReport& report, bool split_sentences, int64_t max_piece_tokens);

// Line `index` (from 0) as the translator prints it: its best text, or with
// `nbest` every hypothesis as "INDEX ||| TEXT ||| SCORE" (an empty or invalid
// line: one empty hypothesis scored 0).
void write_translation(std::ostream& out, int64_t index, const decode::LineTranslation& t, bool nbest);

class TranslationOutput {
 public:
  // Empty path: standard output. Otherwise creates PATH.tmp.PID; an error
  // (exit 1) naming the path when it cannot be created.
  explicit TranslationOutput(const std::string& path);
  ~TranslationOutput();  // removes the temporary file unless committed
  TranslationOutput(const TranslationOutput&) = delete;
  TranslationOutput& operator=(const TranslationOutput&) = delete;

  std::ostream& stream();
  // Flushes; for a file: syncs it to disk and renames it into place.
  void commit();

 private:
  std::string path_, tmp_;
  std::ofstream file_;
  bool committed_ = false;
};

}  // namespace nmt::cli
