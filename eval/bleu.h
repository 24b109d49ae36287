// BLEU as sacreBLEU 2.x computes it by default: one reference, mixed case,
// 13a tokenization, n-grams up to 4, 'exp' smoothing, brevity penalty.
// Signature: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.x.
//
// Corpus BLEU sums n-gram statistics over all segments and scores once, so
// BleuStats can be fed line by line while a translation is being written.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt::eval {

// Sufficient statistics of corpus BLEU. counts[n-1]: clipped matches of
// n-grams, totals[n-1]: hypothesis n-grams; lengths in 13a tokens.
struct BleuStats {
  std::array<int64_t, 4> counts{}, totals{};
  int64_t sys_len = 0, ref_len = 0;

  // Adds one segment. Like sacreBLEU, trailing whitespace is stripped before
  // tokenizing; an empty hypothesis is a valid (zero-length) segment.
  void add(const std::string& hyp, const std::string& ref);
  // Adds another accumulator's statistics (e.g. from a parallel shard).
  void merge(const BleuStats& other);
};

struct BleuResult {
  double score = 0;  // 0..100
  std::array<int64_t, 4> counts{}, totals{};
  std::array<double, 4> precisions{};  // percent; 0 when the score short-cuts to 0
  double bp = 0;                       // brevity penalty
  int64_t sys_len = 0, ref_len = 0;
};

// Scores accumulated statistics. effective_order=true averages only over the
// n-gram orders the hypothesis has (sacreBLEU's option for sentence BLEU).
BleuResult compute_bleu(const BleuStats& stats, bool effective_order = false);

// Corpus BLEU of aligned lines; pairs up to the shorter list (checking that the
// counts agree is the caller's business).
BleuResult corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::string>& refs);

// sacrebleu.sentence_bleu(hyp, [ref]): exp smoothing with effective order.
double sentence_bleu(const std::string& hyp, const std::string& ref);

}  // namespace nmt::eval
