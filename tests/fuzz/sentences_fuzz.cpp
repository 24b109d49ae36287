// Sentence splitting and the cutting of long sentences on arbitrary UTF-8:
// sentences in order, trimmed, with only whitespace between them; pieces of a
// sentence in order, non-empty, with only whitespace between them, and each
// within the limit unless it holds no place to cut.
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "text/join_pieces.h"
#include "text/sentence_splitter.h"
#include "text/split_to_fit.h"
#include "text/utf8.h"

namespace {

void check_between(std::string_view text, size_t from, size_t to) {
  if (from > to || !nmt::text::trim_space(text, {from, to}).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t limit = 4 + data[0] % 60;  // bytes a piece may hold
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (nmt::text::find_invalid_utf8(text) != text.size()) return 0;
  nmt::fuzz::expect_only_our_errors([&] {
    static const nmt::text::SentenceSplitter splitter("en");
    const auto sentences = splitter.split(text);
    size_t last = 0;
    for (const auto& s : sentences) {
      check_between(text, last, s.begin);
      if (s.empty() || s.end > text.size() || !(nmt::text::trim_space(text, s) == s)) std::abort();
      const auto pieces = nmt::text::split_to_fit(
          text, s, [&](std::string_view p) { return p.size() <= limit; }, &splitter);
      size_t at = s.begin;
      std::string joined;
      for (const auto& p : pieces) {
        check_between(text, at, p.begin);
        if (p.empty() || p.end > s.end) std::abort();
        // Over the limit only without a space inside: a space is always a place to cut.
        if (p.size() > limit && p.of(text).find(' ') != std::string_view::npos) std::abort();
        if (!joined.empty()) joined += nmt::text::joint(joined, text.substr(at, p.begin - at), p.of(text));
        joined += std::string(p.of(text));
        at = p.end;
      }
      check_between(text, at, s.end);
      last = s.end;
    }
    check_between(text, last, text.size());
  });
  return 0;
}
