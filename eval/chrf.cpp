#include "eval/chrf.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "eval/tokenizer_13a.h"

namespace nmt::eval {
namespace {

constexpr double kBeta = 2.0;

// A segment with whitespace removed, as UTF-8 plus the byte offset of every
// code point (and one past the end), so a character n-gram is a substring.
struct Chars {
  std::string text;
  std::vector<std::size_t> offsets;

  explicit Chars(const std::string& line) {
    text.reserve(line.size());
    std::size_t pos = 0;
    while (pos < line.size()) {
      char32_t cp;
      const std::size_t len = decode_utf8(line, pos, &cp);
      if (!is_unicode_space(cp)) {
        offsets.push_back(text.size());
        text.append(line, pos, len);
      }
      pos += len;
    }
    offsets.push_back(text.size());
  }
  Chars(const Chars&) = delete;  // views handed out point into text
  Chars& operator=(const Chars&) = delete;

  std::size_t size() const { return offsets.size() - 1; }
  std::string_view ngram(std::size_t first, int n) const {
    return std::string_view(text).substr(offsets[first], offsets[first + n] - offsets[first]);
  }
};

}  // namespace

void ChrfStats::add(const std::string& hyp_line, const std::string& ref_line) {
  const Chars h(hyp_line), r(ref_line);
  std::unordered_map<std::string_view, int64_t> remaining;
  for (int n = 1; n <= kOrder; ++n) {
    if (r.size() < static_cast<std::size_t>(n)) break;  // no reference n-grams of this order
    const int64_t ref_count = static_cast<int64_t>(r.size()) - n + 1;
    ref[n - 1] += ref_count;
    remaining.clear();
    for (std::size_t i = 0; i + n <= r.size(); ++i) ++remaining[r.ngram(i, n)];
    if (h.size() < static_cast<std::size_t>(n)) continue;
    hyp[n - 1] += static_cast<int64_t>(h.size()) - n + 1;
    // Consuming reference counts per occurrence = sum of min(hyp, ref) counts.
    for (std::size_t i = 0; i + n <= h.size(); ++i) {
      auto it = remaining.find(h.ngram(i, n));
      if (it != remaining.end() && it->second > 0) {
        --it->second;
        ++match[n - 1];
      }
    }
  }
}

void ChrfStats::merge(const ChrfStats& other) {
  for (int n = 0; n < kOrder; ++n) {
    hyp[n] += other.hyp[n];
    ref[n] += other.ref[n];
    match[n] += other.match[n];
  }
}

double compute_chrf(const ChrfStats& stats) {
  // Average precision and recall over the orders both sides have, then one
  // F-beta of the averages (sacreBLEU's effective-order chrF, not the mean of
  // per-order F scores).
  double avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (int n = 0; n < ChrfStats::kOrder; ++n) {
    if (stats.hyp[n] > 0 && stats.ref[n] > 0) {
      avg_prec += static_cast<double>(stats.match[n]) / static_cast<double>(stats.hyp[n]);
      avg_rec += static_cast<double>(stats.match[n]) / static_cast<double>(stats.ref[n]);
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0.0;
  avg_prec /= effective_order;
  avg_rec /= effective_order;
  if (avg_prec + avg_rec == 0.0) return 0.0;
  const double factor = kBeta * kBeta;
  const double score = (1.0 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec);
  return 100.0 * score;
}

double corpus_chrf(const std::vector<std::string>& hyps, const std::vector<std::string>& refs) {
  ChrfStats stats;
  const std::size_t n = std::min(hyps.size(), refs.size());
  for (std::size_t i = 0; i < n; ++i) stats.add(hyps[i], refs[i]);
  return compute_chrf(stats);
}

}  // namespace nmt::eval
