// A line's translation aligned word by word to its source, from the
// decoder's cross-attention of each piece's best hypothesis (one
// teacher-forced pass, decode/word_alignment.h): what HTML's markup transfer
// places tags by, and what the server's page highlights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "decode/translation.h"
#include "text/markup_transfer.h"

namespace nmt::decode {

// The decoder layer that aligns words best: the second to last (the last
// for a one-layer model). Measured on the sample model: 98.1% of nouns and
// adjectives, the last layer 96.0%, the first 78.5% (docs/translating.md, HTML).
int64_t default_alignment_layer(Translator& translator);

// Cross-attention of each piece's best hypothesis at `layer` (an undefined
// tensor for a piece without one). Runs the model: call it where the model
// may run (the server: on its batcher's worker).
std::vector<torch::Tensor> piece_attention(Translator& translator, const LinePlan& plan,
                                           const std::vector<std::vector<Hypothesis>>& hypotheses, int64_t layer);

// The target words of the best hypotheses, each with the byte position
// (plus `offset`) in `text` - the line the plan was made of - of the source
// token it aligns to, in target order.
std::vector<text::AlignedWord> aligned_words(const Translator& translator, const std::string& text,
                                             const LinePlan& plan,
                                             const std::vector<std::vector<Hypothesis>>& hypotheses,
                                             const std::vector<torch::Tensor>& attention, size_t offset = 0);

}  // namespace nmt::decode
