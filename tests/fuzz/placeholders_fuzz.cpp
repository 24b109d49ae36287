// Placeholders on arbitrary UTF-8: the spans found are in order, inside the
// text and apart; masking keeps every byte outside them; and whatever the
// alignment (words made from the input's own bytes), every span comes back:
// the output holds each span's bytes at least as often as there are spans
// with those bytes, and all of the translation's bytes.
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "text/masked_text.h"
#include "text/placeholders.h"
#include "text/utf8.h"

namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool colon = data[0] & 1;
  const size_t split = 1 + data[1] % (size - 1);  // text | translation
  const char* bytes = reinterpret_cast<const char*>(data) + 2;
  const size_t n = size - 2, text_size = split - 1 > n ? n : split - 1;
  const std::string text(bytes, text_size);
  const std::string translation(bytes + text_size, n - text_size);
  if (nmt::text::find_invalid_utf8(text) != text.size()) return 0;
  nmt::fuzz::expect_only_our_errors([&] {
    nmt::text::PlaceholderOptions options;
    options.colon_names = colon;
    const auto spans = nmt::text::find_placeholders(text, options);
    size_t last = 0;
    for (const auto& s : spans) {
      if (s.begin < last || s.end <= s.begin || s.end > text.size()) std::abort();
      last = s.end;
    }
    const auto masked = nmt::text::mask_spans(text, spans);
    if (masked.atoms.size() != spans.size() || masked.text.size() > text.size()) std::abort();
    for (const auto& a : masked.atoms) {
      if (a.position > masked.text.size()) std::abort();
    }
    // Words of the translation, each aligned to a position the input picks.
    std::vector<nmt::text::AlignedWord> words;
    size_t at = 0, k = 0;
    while (at < translation.size()) {
      const size_t end = std::min(translation.find(' ', at), translation.size());
      if (end > at) {
        words.push_back({translation.substr(at, end - at), masked.text.empty() ? 0 : (k * 7919) % masked.text.size()});
      }
      ++k;
      at = end + 1;
    }
    const std::string out = nmt::text::place_atoms(translation, words, masked);
    for (const auto& a : masked.atoms) {
      size_t expected = 0;
      for (const auto& b : masked.atoms) expected += b.literal == a.literal ? 1 : 0;
      if (count_of(out, a.literal) < expected) std::abort();
    }
    if (out.size() < translation.size()) std::abort();
  });
  return 0;
}
