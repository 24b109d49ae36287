// SubRip subtitles (.srt): every cue keeps its number and timing. Cues are
// translated in groups that end where a cue ends a sentence (at most 8
// cues), so a sentence spanning cues is translated whole; each cue is an
// element around its lines, and each line one inside it, so the translation
// is spread over the same cues, and a cue's line break kept, where the
// decoder's attention puts the words (decode/html_translation.h); where
// that leaves a cue empty (a verb-final language pulls a sentence into the
// cue of its verb), by the length of each cue's source text. Tags in cue
// text (<i>, <b>, <font>) are carried as HTML's are.
#pragma once

#include <memory>
#include <string>

#include "document/document.h"

namespace nmt::document {

std::unique_ptr<Document> open_subtitles(std::string bytes, const std::string& name, const DocumentLimits& limits);

}  // namespace nmt::document
