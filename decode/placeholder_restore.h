// The protected spans of a line (placeholders, URLs, ... taken out before
// the model saw it: LinePlan::masked) put back into each of its translations,
// next to the words the model's cross-attention aligns their neighbours to
// (text/masked_text.h): one teacher-forced pass per piece and rank. A line
// that was nothing but protected spans comes out as it went in.
#pragma once

#include <cstdint>
#include <vector>

#include "decode/translation.h"

namespace nmt::decode {

bool has_placeholders(const LineTranslation& line);

// Runs the model: call it where the model may run (the server: on its
// batcher's worker). `layer`: the decoder layer that aligns (default_alignment_layer).
void restore_placeholders(Translator& translator, LineTranslation& line, int64_t layer);
// Every line's, the aligning layer found once (and only when a line has placeholders).
void restore_placeholders(Translator& translator, std::vector<LineTranslation>& lines);

}  // namespace nmt::decode
