#include "cli/translator_score.h"

#include <cmath>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/language_pair.h"
#include "util/error.h"

namespace nmt::cli {
namespace {

double rounded(double x) { return std::round(x * 1e4) / 1e4; }

int64_t count_remaining(text::LineReader& reader) {
  std::string_view line;
  int64_t n = 0;
  while (reader.next(line)) ++n;
  return n;
}

[[noreturn]] void misaligned(const std::string& hyp_what, int64_t hyp_lines, const std::string& ref_path,
                             int64_t ref_lines) {
  throw DataError(hyp_what + " " + std::to_string(hyp_lines) + " lines but the references " + ref_path + " have " +
                  std::to_string(ref_lines) + "; they must be aligned line by line.");
}

}  // namespace

TranslationScores::TranslationScores(const std::string& language) {
  bleu_lc.variant = eval::lowercased_13a();
  bleu_moses_lc.variant = eval::lowercased_moses(language);
}

void TranslationScores::add(const std::string& hypothesis, const std::string& reference) {
  bleu.add(hypothesis, reference);
  bleu_lc.add(hypothesis, reference);
  bleu_moses_lc.add(hypothesis, reference);
  chrf.add(hypothesis, reference);
}

void print_scores(const TranslationScores& scores) {
  const eval::BleuResult b = eval::compute_bleu(scores.bleu);
  nlohmann::json j;
  j["bleu"] = rounded(b.score);
  j["chrf2"] = rounded(eval::compute_chrf(scores.chrf));
  j["bp"] = std::round(b.bp * 1e6) / 1e6;
  j["sys_len"] = b.sys_len;
  j["ref_len"] = b.ref_len;
  j["counts"] = b.counts;
  j["totals"] = b.totals;
  std::vector<double> precisions;
  for (double p : b.precisions) precisions.push_back(rounded(p));
  j["precisions"] = precisions;
  // For comparison with papers only: lower-cased and tokenized.
  j["bleu_lc"] = rounded(eval::compute_bleu(scores.bleu_lc).score);
  j["bleu_moses_lc"] = rounded(eval::compute_bleu(scores.bleu_moses_lc).score);
  j["signature"] = {{"bleu", scores.bleu.variant.signature()},
                    {"chrf2", "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.x"},
                    {"bleu_lc", scores.bleu_lc.variant.signature()},
                    {"bleu_moses_lc", scores.bleu_moses_lc.variant.signature()}};
  std::cerr << j.dump() << std::endl;
}

int score_files(const std::string& ref_path, const std::string& hyp_path) {
  text::LineReader ref(ref_path), hyp(hyp_path);
  TranslationScores scores(data::language_code_of_path(ref_path));
  std::string_view r, h;
  while (true) {
    const bool has_h = hyp.next(h), has_r = ref.next(r);
    if (has_h != has_r) {
      const int64_t n_h = hyp.line_number() + (has_h ? count_remaining(hyp) : 0);
      const int64_t n_r = ref.line_number() + (has_r ? count_remaining(ref) : 0);
      misaligned("The hypotheses " + hyp_path + " have", n_h, ref_path, n_r);
    }
    if (!has_h) break;
    scores.add(std::string(h), std::string(r));
  }
  print_scores(scores);
  return kExitOk;
}

void ReferenceScorer::add(int64_t index, const std::string& hypothesis) {
  std::string_view ref;
  if (!reader_.next(ref)) misaligned("The input has at least", index + 1, path_, reader_.line_number());
  scores_.add(hypothesis, std::string(ref));
}

void ReferenceScorer::finish(int64_t input_lines) {
  std::string_view ref;
  if (reader_.next(ref)) {
    const int64_t n_r = reader_.line_number() + count_remaining(reader_);
    misaligned("The input has", input_lines, path_, n_r);
  }
}

}  // namespace nmt::cli
