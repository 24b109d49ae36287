#include "eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "eval/lowercase.h"
#include "eval/moses_tokenizer.h"
#include "eval/tokenizer_13a.h"

namespace nmt::eval {
namespace {

constexpr int kMaxOrder = 4;

// sacreBLEU lower-cases before it tokenizes; Moses's tokenizer runs on the
// cased text (its final-period rule looks at case), multi-bleu.perl -lc after.
std::string tokenize(const std::string& line, const BleuVariant& variant) {
  if (variant.moses) {
    const std::string tokens = moses_tokenize(line, variant.language);
    return variant.lowercase ? lowercase(tokens) : tokens;
  }
  const std::string stripped(rstrip_unicode_whitespace(line));
  return tokenize_13a(variant.lowercase ? lowercase(stripped) : stripped);
}

// A tokenized segment: the 13a string and its tokens as views into it. Since
// 13a output separates tokens by single spaces, an n-gram is the substring
// from its first to its last token, which serves as the count key.
struct Tokenized {
  std::string text;
  std::vector<std::string_view> tokens;

  Tokenized(const std::string& line, const BleuVariant& variant)
      : text(tokenize(line, variant)), tokens(split_unicode_whitespace(text)) {}
  Tokenized(const Tokenized&) = delete;  // tokens point into text
  Tokenized& operator=(const Tokenized&) = delete;

  std::string_view ngram(std::size_t first, int n) const {
    const std::string_view last = tokens[first + n - 1];
    const char* begin = tokens[first].data();
    return std::string_view(begin, static_cast<std::size_t>(last.data() + last.size() - begin));
  }
};

// multi-bleu.perl's score: the geometric mean of unsmoothed precisions.
void multi_bleu_score(BleuResult& result) {
  double log_sum = 0.0;
  for (int n = 0; n < kMaxOrder; ++n) {
    const double p = result.totals[n] > 0 ? static_cast<double>(result.counts[n]) / result.totals[n] : 0.0;
    result.precisions[n] = 100.0 * p;
    log_sum += p > 0 ? std::log(p) : -9999999999.0;
  }
  result.score = 100.0 * result.bp * std::exp(log_sum / kMaxOrder);
}

// sacreBLEU's my_log: log(0) is a large negative number rather than -inf.
double my_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

}  // namespace

void BleuStats::add(const std::string& hyp, const std::string& ref) {
  const Tokenized h(hyp, variant), r(ref, variant);
  // N-grams of different orders never collide as strings (their token counts
  // differ), so one map holds every order of the reference.
  std::unordered_map<std::string_view, int64_t> remaining;
  for (int n = 1; n <= kMaxOrder; ++n) {
    for (std::size_t i = 0; i + n <= r.tokens.size(); ++i) ++remaining[r.ngram(i, n)];
  }
  // Consuming reference counts per hypothesis occurrence equals the clipped
  // count min(hyp_count, ref_count) summed over distinct n-grams.
  for (int n = 1; n <= kMaxOrder; ++n) {
    for (std::size_t i = 0; i + n <= h.tokens.size(); ++i) {
      ++totals[n - 1];
      auto it = remaining.find(h.ngram(i, n));
      if (it != remaining.end() && it->second > 0) {
        --it->second;
        ++counts[n - 1];
      }
    }
  }
  sys_len += static_cast<int64_t>(h.tokens.size());
  ref_len += static_cast<int64_t>(r.tokens.size());
}

void BleuStats::merge(const BleuStats& other) {
  for (int n = 0; n < kMaxOrder; ++n) {
    counts[n] += other.counts[n];
    totals[n] += other.totals[n];
  }
  sys_len += other.sys_len;
  ref_len += other.ref_len;
}

BleuResult compute_bleu(const BleuStats& stats, bool effective_order) {
  BleuResult result;
  result.counts = stats.counts;
  result.totals = stats.totals;
  result.sys_len = stats.sys_len;
  result.ref_len = stats.ref_len;
  if (stats.sys_len < stats.ref_len) {
    result.bp = stats.sys_len > 0
                    ? std::exp(1.0 - static_cast<double>(stats.ref_len) / stats.sys_len)
                    : 0.0;
  } else {
    result.bp = 1.0;
  }
  if (stats.variant.moses) {
    multi_bleu_score(result);
    return result;
  }
  // sacreBLEU 2.x returns 0 outright when nothing matches (its issue #141).
  if (std::all_of(stats.counts.begin(), stats.counts.end(), [](int64_t c) { return c == 0; })) {
    result.score = 0.0;
    return result;
  }
  // 'exp' smoothing (NIST, mteval-v13a): the k-th order with no match gets
  // precision 1 / (2^k * total).
  double smooth = 1.0;
  int order = kMaxOrder;
  for (int n = 1; n <= kMaxOrder; ++n) {
    const int64_t total = stats.totals[n - 1];
    if (total == 0) break;
    if (effective_order) order = n;
    const int64_t correct = stats.counts[n - 1];
    if (correct == 0) {
      smooth *= 2;
      result.precisions[n - 1] = 100.0 / (smooth * static_cast<double>(total));
    } else {
      result.precisions[n - 1] = 100.0 * static_cast<double>(correct) / static_cast<double>(total);
    }
  }
  double log_sum = 0.0;
  for (int n = 0; n < order; ++n) log_sum += my_log(result.precisions[n]);
  result.score = result.bp * std::exp(log_sum / order);
  return result;
}

std::string BleuVariant::signature() const {
  if (moses) {
    return std::string("multi-bleu.perl") + (lowercase ? " -lc" : "") + " on tokenizer.perl -l " +
           (language.empty() ? "any" : language) + " -no-escape";
  }
  return std::string("nrefs:1|case:") + (lowercase ? "lc" : "mixed") + "|eff:no|tok:13a|smooth:exp|version:2.x";
}

BleuResult corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::string>& refs) {
  BleuStats stats;
  const std::size_t n = std::min(hyps.size(), refs.size());
  for (std::size_t i = 0; i < n; ++i) stats.add(hyps[i], refs[i]);
  return compute_bleu(stats);
}

double sentence_bleu(const std::string& hyp, const std::string& ref) {
  BleuStats stats;
  stats.add(hyp, ref);
  return compute_bleu(stats, /*effective_order=*/true).score;
}

}  // namespace nmt::eval
