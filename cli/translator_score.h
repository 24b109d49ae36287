// The translator's scoring: corpus BLEU and chrF2 (sacreBLEU's defaults) of
// translations against references, printed as one JSON line on stderr,
// beside two lower-cased, tokenized BLEU variants that compare with papers
// (eval/bleu.h): sacreBLEU's -lc and Moses's tokenizer with multi-bleu.perl.
#pragma once

#include <cstdint>
#include <string>

#include "eval/bleu.h"
#include "eval/chrf.h"
#include "text/line_reader.h"

namespace nmt::cli {

// Every score of one translation, accumulated line by line.
struct TranslationScores {
  // `language`: the translations' (Moses's tokenizer follows its rules).
  explicit TranslationScores(const std::string& language);
  void add(const std::string& hypothesis, const std::string& reference);

  eval::BleuStats bleu, bleu_lc, bleu_moses_lc;
  eval::ChrfStats chrf;
};

// {"bleu":..,"chrf2":..,"bp":..,"sys_len":..,"ref_len":..,"counts":[..],
//  "totals":[..],"precisions":[..],"bleu_lc":..,"bleu_moses_lc":..,
//  "signature":{"bleu":..,"chrf2":..,"bleu_lc":..,"bleu_moses_lc":..}}
// The first BLEU (cased, detokenized) is the headline.
void print_scores(const TranslationScores& scores);

// `--score REF --hypotheses HYP`: a DataError naming both files when their
// line counts differ; unreadable or non-UTF-8 files are DataErrors too. The
// language is the reference file's suffix (ref.en), if it has one.
int score_files(const std::string& ref_path, const std::string& hyp_path);

// References read alongside translations that come out in input order.
class ReferenceScorer {
 public:
  ReferenceScorer(const std::string& path, const std::string& language)
      : path_(path), reader_(path), scores_(language) {}
  // Line `index` (0-based) of the input was translated as `hypothesis`.
  void add(int64_t index, const std::string& hypothesis);
  // After the last input line: the references must end too.
  void finish(int64_t input_lines);
  void print() const { print_scores(scores_); }

 private:
  std::string path_;
  text::LineReader reader_;
  TranslationScores scores_;
};

}  // namespace nmt::cli
