// A piece of a long sentence dressed as the sentences a model was trained
// on, and its translation undressed again. A run-on split at its clauses
// gives pieces such as "the cup is cheap;" or "and the mice come in": a model
// that has only seen whole sentences ("The cup is cheap.") translates those
// poorly, or drops them. So a piece that does not start its sentence loses a
// leading coordinating conjunction ("and", "und", "et") and has its first
// word capitalized where the training sentences start with that word
// capitalized; a piece that does not end its sentence ends with the training
// sentences' usual final mark instead of its clause mark. The translation
// then gets the reverse: its final mark back to the clause mark, its first
// word lowered where the target's training sentences only capitalize it at
// their start, and the target language's conjunction in front.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

// The coordinating conjunctions of a language ("en", "de", ...) in a fixed
// order of meaning: and, but, or. Empty for a language without a list.
std::vector<std::string> coordinating_conjunctions(const std::string& language);

// What the sentences of one side of a model's training data look like.
struct SentenceShape {
  std::string language;
  // Whether a word starts training sentences far more than it occurs elsewhere ("The").
  std::function<bool(std::string_view word)> opens_sentence;
  std::string final_mark;  // the mark most training sentences end with ("."), or "" when none does
};

struct ShapedPiece {
  std::string text;             // what the model translates
  int conjunction = -1;         // the leading conjunction removed (its index in the list), or -1
  bool capitalized = false;     // its first letter was raised
  std::string end_mark;         // the clause mark it ended with (",", ";", ":"), replaced by the final mark
  bool final_added = false;     // the final mark was added: the translation's is taken off again
};

// `piece`: trimmed text of one piece of a sentence split into several;
// `starts`/`ends`: whether it starts or ends the sentence.
ShapedPiece shape_piece(std::string_view piece, bool starts, bool ends, const SentenceShape& source,
                        const SentenceShape& target);

// The translation of a shaped piece, as it belongs inside the whole.
std::string unshape_translation(std::string translation, const ShapedPiece& piece, const SentenceShape& target);

}  // namespace nmt::text
