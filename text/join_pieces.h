// What goes between two translated pieces of one line (sentences of a
// paragraph, or pieces of a sentence too long for the model).
#pragma once

#include <string>
#include <string_view>

namespace nmt::text {

// The source's whitespace between the two pieces (`source_gap`), kept as it
// is, except where the translations meet in a script written without spaces
// (Chinese, Japanese, Thai ...) on both sides: there a gap without a line
// break is dropped. Where the source had no gap (Japanese sentences, or a
// long word cut by tokens) a space is put between translations unless such a
// script is on either side of the join.
// `left` and `right` are not empty.
std::string joint(std::string_view left, std::string_view source_gap, std::string_view right);

}  // namespace nmt::text
