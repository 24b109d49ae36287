// Which sentence pairs training keeps, and how many each rule dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt::data {

struct FilterRules {
  int64_t max_len = 128;       // tokens per side, before sos/eos
  double max_len_ratio = 3.0;  // longer/shorter side in tokens; <= 0 disables
  bool drop_identical = false;  // sides that are the same text (untranslated copies)
  bool drop_duplicates = false;  // a pair equal to an earlier one of the corpus
};

enum class Verdict { kKeep, kEmpty, kTooLong, kBadRatio, kIdentical, kDuplicate };

// The first rule a pair breaks, in the order empty side, max_len, ratio.
Verdict judge_pair(int64_t src_tokens, int64_t tgt_tokens, const FilterRules& rules);

struct FilterStats {
  int64_t read = 0;       // pairs read
  int64_t kept = 0;
  int64_t empty = 0;      // a side with no tokens (empty or blank line)
  int64_t too_long = 0;   // a side over max_len
  int64_t bad_ratio = 0;  // sides' lengths too different
  int64_t identical = 0;  // both sides the same text (drop_identical)
  int64_t duplicate = 0;  // equal to an earlier pair (drop_duplicates)
  // A side longer than the line reader's byte limit (never encoded), and
  // the line numbers of the first few such pairs.
  int64_t over_byte_limit = 0;
  std::vector<int64_t> first_over_byte_limit;
  FilterRules rules;

  void count(Verdict v);
  void count_over_byte_limit(int64_t line_number);
  // e.g. "29000 pairs read, 28873 kept; dropped: 2 with an empty side,
  // 0 over max_len 128, 125 over length ratio 3" and, where the filters are
  // on, ", 3 with identical sides, 40 duplicates", and where there were such
  // pairs, ", 2 with a line over the byte limit (lines 7, 9)"
  std::string summary() const;
};

}  // namespace nmt::data
