// The text of target ids in which unknown tokens stand for pieces copied
// from the source (CTranslate2's replace_unknowns, as argos-translate joins
// the result): each copy is written as its piece with "▁" read as a space.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/vocab.h"

namespace nmt::vocab {

// `ids` as target.decode() writes them, except that the i-th unknown token
// is written as copies[i] (unknown tokens beyond the copies stay as decode()
// writes them). A vocabulary of tokens separated by spaces puts the copies
// between spaces too; one cut by SentencePiece joins them as pieces join: a
// copy or piece that starts with "▁" starts a word, and the text's first
// space is dropped.
std::string decode_with_copies(const Vocab& target, const std::vector<int64_t>& ids,
                               const std::vector<std::string>& copies);

}  // namespace nmt::vocab
