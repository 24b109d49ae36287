// A sentence longer than the model should take, cut into pieces that fit: at
// the best boundary available, nearest the middle, again and again until
// every piece fits. Best first: sentence ends (ICU; a line not split into
// sentences may hold several), clause punctuation (", ", "; ", ": ", dashes,
// and the full-width marks of Chinese and Japanese), whitespace before a word
// that opens sentences (a run-on without punctuation: "... the shop The cup
// ..."), whitespace before a coordinating conjunction ("and", "und", "et"),
// any whitespace, then ICU's word boundaries (which find words in scripts
// written without spaces). A piece with none of these (one very long word) is
// left whole for the caller to cut by tokens.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "text/span.h"

namespace nmt::text {

class SentenceSplitter;

// Whether a piece of text fits the model.
using FitsModel = std::function<bool(std::string_view piece)>;

// What marks a word as the probable start of a clause (either may be empty).
struct ClauseHints {
  std::function<bool(std::string_view word)> opens_sentence;  // the model's training sentences start so
  std::vector<std::string> conjunctions;                      // coordinating conjunctions of the language
};

// Pieces of `sentence` (a span of valid UTF-8 `text` without whitespace at its
// ends) in order, each trimmed of whitespace; what lies between two pieces is
// whitespace or nothing. {sentence} itself when it fits. `sentences` (may be
// null) gives the sentence ends.
std::vector<Span> split_to_fit(std::string_view text, Span sentence, const FitsModel& fits,
                               const SentenceSplitter* sentences, const ClauseHints* hints = nullptr);

}  // namespace nmt::text
