// Inline markup carried from a source sentence to its translation: each
// target word takes the innermost source element around the source position
// it aligns to (the decoder's cross-attention, decode/html_translation.h), and
// each element is wrapped once around the target words of its own and its
// children's, as one stretch from the first to the last. The output keeps the
// source's element tree: every element once, nested as before, siblings in
// their order (a child is kept inside its parent's stretch and after its
// previous sibling's; an element none of whose words survive wraps nothing,
// placed after the words aligned before it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt::text {

struct AlignedWord {
  std::string text;    // the translated word, not escaped
  size_t source = 0;   // the source text position it aligns to
  bool verbatim = false;  // HTML written as it is (an element kept untranslated), not text to escape
};

struct MarkupElement {
  size_t begin = 0, end = 0;  // the source text it covers (the coordinates of AlignedWord::source)
  int parent = -1;            // index of the enclosing element in the same list; parents come first
  std::string open, close;    // its tags as written out
};

// The translation as HTML: the words escaped and joined by a space (none
// between words of scripts written without spaces), with the elements' tags.
std::string transfer_markup(const std::vector<AlignedWord>& words, const std::vector<MarkupElement>& elements);

}  // namespace nmt::text
