// chrF2 as sacreBLEU 2.x computes it by default: character n-grams of orders
// 1..6 over Unicode code points with all whitespace removed, no word n-grams,
// beta 2, mixed case, and the effective-order average (orders where either
// side has no n-grams are left out; eps_smoothing off).
// Signature: nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.x.
//
// Corpus chrF sums the per-order statistics over all segments and scores once.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt::eval {

struct ChrfStats {
  static constexpr int kOrder = 6;
  // Per order n (index n-1): hypothesis n-grams, reference n-grams, clipped
  // matches. As in sacreBLEU, the hypothesis count of an order is recorded as
  // 0 for a segment whose reference has no n-grams of that order.
  std::array<int64_t, kOrder> hyp{}, ref{}, match{};

  // Adds one segment. Input is UTF-8; a malformed byte counts as one character.
  void add(const std::string& hyp, const std::string& ref);
  void merge(const ChrfStats& other);
};

// chrF2 score, 0..100, of accumulated statistics.
double compute_chrf(const ChrfStats& stats);

// Corpus chrF2 of aligned lines; pairs up to the shorter list.
double corpus_chrf(const std::vector<std::string>& hyps, const std::vector<std::string>& refs);

}  // namespace nmt::eval
