// Inline markup carried from a source sentence to its translation: each
// target word takes the innermost source element around the source position
// it aligns to (the decoder's cross-attention, decode/html_translation.h), and
// each element is wrapped once around the target words of its own and its
// children's, as one stretch from the first to the last. An element that
// holds source words but that no target word aligns into takes the target
// word aligned nearest to it (outside every other element but its
// ancestors): alignment unsure, its words are still somewhere in the
// translation. The output keeps the source's element tree: every element
// once, nested as before, siblings in their order (a child is kept inside its
// parent's stretch and after its previous sibling's; an element with no word
// left to take wraps nothing, placed after the words aligned before it).
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
  bool holds_words = true;    // its source text has letters or digits: it takes a word when none aligns into it
};

// The translation as HTML: the words escaped and joined by a space (none
// between words of scripts written without spaces), with the elements' tags.
std::string transfer_markup(const std::vector<AlignedWord>& words, const std::vector<MarkupElement>& elements);

}  // namespace nmt::text
