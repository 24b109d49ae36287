// BLEU as sacreBLEU 2.x computes it by default: one reference, mixed case,
// 13a tokenization, n-grams up to 4, 'exp' smoothing, brevity penalty.
// Signature: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.x.
//
// Corpus BLEU sums n-gram statistics over all segments and scores once, so
// BleuStats can be fed line by line while a translation is being written.
//
// Two variants compare with papers (BleuVariant): sacreBLEU's -lc (the same
// with both sides lower-cased), and the "tokenized BLEU" most papers report:
// both sides through Moses's tokenizer, lower-cased, and multi-bleu.perl's
// arithmetic (no smoothing: an n-gram order without a match scores 0).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt::eval {

// How segments become tokens, and how BLEU is computed from their counts.
struct BleuVariant {
  bool lowercase = false;  // sacreBLEU's -lc; multi-bleu.perl's -lc
  bool moses = false;      // Moses's tokenizer (eval/moses_tokenizer.h) and multi-bleu.perl instead of 13a
  std::string language;    // of both sides, for Moses's tokenizer
  // sacreBLEU's signature, or what the Moses variant runs.
  std::string signature() const;
};

// sacreBLEU -lc; the Moses variant in `language`.
inline BleuVariant lowercased_13a() { return BleuVariant{true, false, ""}; }
inline BleuVariant lowercased_moses(const std::string& language) { return BleuVariant{true, true, language}; }

// Sufficient statistics of corpus BLEU. counts[n-1]: clipped matches of
// n-grams, totals[n-1]: hypothesis n-grams; lengths in 13a tokens.
struct BleuStats {
  std::array<int64_t, 4> counts{}, totals{};
  int64_t sys_len = 0, ref_len = 0;
  BleuVariant variant;  // sacreBLEU's default unless set

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
