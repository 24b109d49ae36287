#include "data/pair_filter.h"

#include <algorithm>
#include <sstream>

#include "text/line_reader.h"

namespace nmt::data {

Verdict judge_pair(int64_t src_tokens, int64_t tgt_tokens, const FilterRules& rules) {
  if (src_tokens == 0 || tgt_tokens == 0) return Verdict::kEmpty;
  if (src_tokens > rules.max_len || tgt_tokens > rules.max_len) return Verdict::kTooLong;
  if (rules.max_len_ratio > 0) {
    const auto longer = static_cast<double>(std::max(src_tokens, tgt_tokens));
    const auto shorter = static_cast<double>(std::min(src_tokens, tgt_tokens));
    if (longer > rules.max_len_ratio * shorter) return Verdict::kBadRatio;
  }
  return Verdict::kKeep;
}

void FilterStats::count(Verdict v) {
  ++read;
  switch (v) {
    case Verdict::kKeep: ++kept; break;
    case Verdict::kEmpty: ++empty; break;
    case Verdict::kTooLong: ++too_long; break;
    case Verdict::kBadRatio: ++bad_ratio; break;
    case Verdict::kIdentical: ++identical; break;
    case Verdict::kDuplicate: ++duplicate; break;
  }
}

void FilterStats::count_over_byte_limit(int64_t line_number) {
  ++read;
  ++over_byte_limit;
  if (first_over_byte_limit.size() < text::kSkippedLineExamples) first_over_byte_limit.push_back(line_number);
}

std::string FilterStats::summary() const {
  std::ostringstream s;
  s << read << " pairs read, " << kept << " kept; dropped: " << empty << " with an empty side, "
    << too_long << " over max_len " << rules.max_len << ", " << bad_ratio << " over length ratio ";
  if (rules.max_len_ratio > 0) {
    s << rules.max_len_ratio;
  } else {
    s << "(off)";
  }
  if (rules.drop_identical) s << ", " << identical << " with identical sides";
  if (rules.drop_duplicates) s << ", " << duplicate << (duplicate == 1 ? " duplicate" : " duplicates");
  if (over_byte_limit > 0) {
    s << ", " << over_byte_limit << " with a line over the byte limit ("
      << (over_byte_limit == 1 ? "line " : "lines ") << text::line_number_list(first_over_byte_limit, over_byte_limit)
      << ")";
  }
  return s.str();
}

}  // namespace nmt::data
