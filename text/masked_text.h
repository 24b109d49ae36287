// A text with its protected spans (text/placeholders.h) taken out, so that
// the model never sees them and cannot garble them, and put back into the
// translation by the model's alignment: each span goes next to the target
// word aligned to the source word beside it (the word after it, or the one
// before where it is glued to that one or ends its sentence), so every span
// comes out exactly once, byte for byte.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "text/markup_transfer.h"
#include "text/span.h"

namespace nmt::text {

struct MaskedAtom {
  std::string literal;      // what goes back: the span's bytes, or what replaces it (a remembered translation)
  Span original;            // where it was in the text
  size_t position = 0;      // where it was taken out of the masked text
  bool space_before = true, space_after = true;  // whitespace (or the text's edge) on each side in the text
  bool verbatim = false;  // markup written as it is where words are escaped (place_atom_words)
  bool sentence = false;  // a whole sentence replaced: it goes between the translations of its neighbours
};

struct MaskedText {
  std::string source;             // the text as given
  std::string text;               // without the spans, whitespace around them closed up
  std::vector<MaskedAtom> atoms;  // in text order
  struct Stretch {
    size_t original = 0, masked = 0, size = 0;  // text copied from the original to the masked text
  };
  std::vector<Stretch> stretches;
  // A position of the original text in the masked text (inside a span: where it was taken out).
  size_t masked_position(size_t original) const;
  // A position of the masked text in the original text.
  size_t original_position(size_t masked) const;
  // The original text with each span replaced by its atom's literal: the
  // translation of a text the model had nothing of.
  std::string with_literals() const;
};

// `spans`: in order, not overlapping, within `text`. `replacements`: empty,
// or per span what goes back in its place (none: the span itself; a
// replaced span is a whole sentence, placed by sentence order).
MaskedText mask_spans(const std::string& text, const std::vector<Span>& spans,
                      const std::vector<std::optional<std::string>>& replacements = {});

// `text` with its remembered sentences taken out (each replaced by its
// remembered translation) and the placeholders outside them (`placeholders`:
// in order, apart).
MaskedText mask_remembered(const std::string& text, std::vector<std::pair<Span, std::string>> remembered,
                           const std::vector<Span>& placeholders);

// `translation` with `masked`'s atoms put in. `words`: the translation's
// words in target order, each with the byte position in masked.text of the
// source token it aligns to (decode::aligned_words); words the translation
// does not contain as written are passed over. An atom whose neighbours have
// no aligned word goes after the words aligned before its position.
std::string place_atoms(const std::string& translation, const std::vector<AlignedWord>& words,
                        const MaskedText& masked);

// The same for a translation as aligned words (HTML's markup transfer): each
// atom becomes a word of its own, at the place place_atoms puts it, aligned
// to its position; every position (the words' and the atoms') plus `offset`.
std::vector<AlignedWord> place_atom_words(std::vector<AlignedWord> words, const MaskedText& masked, size_t offset);

}  // namespace nmt::text
