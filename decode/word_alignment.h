// Target words aligned to source tokens by cross-attention, as the HTML
// markup transfer uses them and the attention picture outlines them: a target
// word is a run of target tokens from one starting with "▁" to the next; it
// aligns to the source token that its tokens' rows give the most attention
// in sum (sos and eos columns left out).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "vocab/vocab.h"

namespace nmt::decode {

struct WordAlignment {
  size_t begin = 0, end = 0;  // the word's target tokens [begin, end)
  size_t source = 0;          // the source token it aligns to (0-based, without sos)
};

// `attention`: [target tokens + 1 (eos), source tokens + 2 (sos, eos)] on the
// CPU in float, from Translator::cross_attention; `target`: the hypothesis's
// tokens; `source_tokens`: the source's length. Empty for an empty target.
std::vector<WordAlignment> align_words(const torch::Tensor& attention, const std::vector<int64_t>& target,
                                       size_t source_tokens, const vocab::Vocab& target_vocab);

}  // namespace nmt::decode
