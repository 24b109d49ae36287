#include "decode/coverage_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.h"

namespace nmt::decode {

void CoverageOptions::validate() const {
  if (threshold < 0 || threshold > 1) {
    throw UsageError("--coverage-threshold must lie in [0, 1] (got " + std::to_string(threshold) + ").");
  }
  if (max_uncovered_words < 0) {
    throw UsageError("--max-uncovered-words must be at least 0 (got " + std::to_string(max_uncovered_words) + ").");
  }
  if (rounds < 0 || rounds > 4) throw UsageError("--coverage-rounds must lie in [0, 4] (got " + std::to_string(rounds) + ").");
  if (min_ratio < 0 || (max_ratio > 0 && max_ratio < min_ratio)) {
    throw UsageError("The coverage check's length ratios are out of order (" + std::to_string(min_ratio) + ", " +
                     std::to_string(max_ratio) + ").");
  }
}

CoverageChecker::CoverageChecker(std::shared_ptr<const vocab::Vocab> source, CoverageOptions options)
    : source_(std::move(source)), options_(options) {
  if (!source_) throw DataError("The coverage check needs the source vocabulary.");
  options_.validate();
  starts_word_.resize(static_cast<size_t>(source_->size()));
  static const std::string kWordMark = "\xE2\x96\x81";  // "▁"
  for (int32_t id = 0; id < static_cast<int32_t>(source_->size()); ++id) {
    starts_word_[static_cast<size_t>(id)] = source_->id_to_piece(id).rfind(kWordMark, 0) == 0 ? 1 : 0;
  }
}

std::vector<WordMass> CoverageChecker::word_masses(const std::vector<int64_t>& ids,
                                                   const std::vector<float>& coverage) const {
  std::vector<WordMass> words;
  for (size_t j = 0; j < ids.size(); ++j) {
    const auto id = static_cast<size_t>(ids[j]);
    const bool starts = j == 0 || (id < starts_word_.size() && starts_word_[id]);
    if (starts) words.push_back({static_cast<int64_t>(j), static_cast<int64_t>(j), 0.0});
    words.back().end = static_cast<int64_t>(j) + 1;
    if (j + 1 < coverage.size()) words.back().mass += coverage[j + 1];  // position 0 is sos
  }
  return words;
}

PieceCheck CoverageChecker::check(const std::vector<int64_t>& ids, const Hypothesis& best) const {
  PieceCheck c;
  c.length_limited = best.length_limited;
  if (best.coverage.size() < ids.size() + 2) return c;
  c.checked = true;
  const auto n = static_cast<int64_t>(ids.size());
  if (options_.max_ratio > 0 && n >= kRatioCheckTokens) {
    const double ratio = static_cast<double>(best.tokens.size()) / static_cast<double>(n);
    c.ratio_outside = ratio < options_.min_ratio || ratio > options_.max_ratio;
  }
  int64_t run = 0, run_begin = 0;
  const auto end_run = [&] {
    if (run > options_.max_uncovered_words) c.uncovered_total += run;
    run = 0;
  };
  for (const WordMass& w : word_masses(ids, best.coverage)) {
    if (w.mass >= options_.threshold) {
      end_run();
      continue;
    }
    if (run == 0) run_begin = w.begin;
    ++run;
    if (run > c.uncovered_words) {
      c.uncovered_words = run;
      c.uncovered_begin = run_begin;
      c.uncovered_end = w.end;
    }
  }
  end_run();
  return c;
}

double failing_threshold(const std::vector<WordMass>& words, int64_t max_uncovered_words) {
  const auto window = static_cast<size_t>(max_uncovered_words) + 1;
  double least = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i + window <= words.size(); ++i) {
    double largest = 0;
    for (size_t j = i; j < i + window; ++j) largest = std::max(largest, words[j].mass);
    least = std::min(least, largest);
  }
  return least;
}

double learn_threshold(std::vector<double> levels) {
  levels.erase(std::remove_if(levels.begin(), levels.end(), [](double v) { return !std::isfinite(v); }), levels.end());
  if (levels.empty()) return 0;
  std::sort(levels.begin(), levels.end());
  const auto at = static_cast<size_t>(static_cast<double>(levels.size()) / 500.0);
  return std::min(0.5, 0.8 * levels[std::min(at, levels.size() - 1)]);
}

}  // namespace nmt::decode
