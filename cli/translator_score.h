// The translator's scoring: corpus BLEU and chrF2 (sacreBLEU's defaults) of
// translations against references, printed as one JSON line on stderr.
#pragma once

#include <cstdint>
#include <string>

#include "eval/bleu.h"
#include "eval/chrf.h"
#include "text/line_reader.h"

namespace nmt::cli {

// {"bleu":..,"chrf2":..,"bp":..,"sys_len":..,"ref_len":..,"counts":[..],
//  "totals":[..],"precisions":[..],"signature":{"bleu":..,"chrf2":..}}
void print_scores(const eval::BleuStats& bleu, const eval::ChrfStats& chrf);

// `--score REF --hypotheses HYP`: a DataError naming both files when their
// line counts differ; unreadable or non-UTF-8 files are DataErrors too.
int score_files(const std::string& ref_path, const std::string& hyp_path);

// References read alongside translations that come out in input order.
class ReferenceScorer {
 public:
  explicit ReferenceScorer(const std::string& path) : path_(path), reader_(path) {}
  // Line `index` (0-based) of the input was translated as `hypothesis`.
  void add(int64_t index, const std::string& hypothesis);
  // After the last input line: the references must end too.
  void finish(int64_t input_lines);
  void print() const { print_scores(bleu_, chrf_); }

 private:
  std::string path_;
  text::LineReader reader_;
  eval::BleuStats bleu_;
  eval::ChrfStats chrf_;
};

}  // namespace nmt::cli
