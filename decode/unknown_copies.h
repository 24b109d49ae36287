// Unknown target tokens written as the source pieces the model attends to
// as it writes them (CTranslate2's replace_unknowns, which argos-translate
// asks for): one teacher-forced pass per hypothesis that holds the unknown
// token, read at the translator's alignment (TranslatorOptions::
// alignment_layer and alignment_heads); the most attended of the source's
// own pieces (sos and eos left out) is copied. Pieces are copied as the
// source's segmenter cut them, so that a source word the vocabulary lacks
// (read as the unknown token) comes out as it was written. The copies go
// into Hypothesis::unknown_copies, which rebuilding a line writes
// (vocab/copied_pieces.h).
#pragma once

#include <string>
#include <vector>

#include "decode/translation.h"

namespace nmt::decode {

// Whether `translator` replaces unknown tokens and a hypothesis of
// `hypotheses` ([plan][piece][rank]) holds one.
bool has_unknowns(const Translator& translator, const std::vector<std::vector<std::vector<Hypothesis>>>& hypotheses);

// Sets the unknown copies of every such hypothesis of each plan. Runs the
// model: call it where the model may run (the server: on its batcher's
// worker), before the lines are rebuilt.
void copy_unknowns(Translator& translator, const std::vector<LinePlan>& plans,
                   std::vector<std::vector<std::vector<Hypothesis>>>& hypotheses);

// The text of h's tokens [begin, end) (all of them by default), its unknown
// tokens written as their copies where it has them.
std::string hypothesis_text(const vocab::Vocab& target, const Hypothesis& h, size_t begin = 0,
                            size_t end = static_cast<size_t>(-1));

}  // namespace nmt::decode
