// translator --attention-svg: a line's cross-attention drawn as an SVG picture.
#pragma once

#include <cstdint>
#include <string>

#include "decode/translation.h"

namespace nmt::cli {

// The cross-attention of `attention_layer` (negative: from the last) between
// the line's first piece (its first sentence, or the first piece of a long
// one) and its best translation, mean over heads, with each target word's
// aligned source piece framed, written whole to `svg_path`; `index` is the
// line's, from 0.
void write_attention_svg(decode::Translator& translator, const decode::LineTranslation& t, int64_t attention_layer,
                         const std::string& svg_path, int64_t index);

}  // namespace nmt::cli
