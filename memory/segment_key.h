// The key a sentence is remembered under: Unicode NFC, whitespace runs as one
// space, none at either end. Two spellings a reader cannot tell apart (a
// composed and a decomposed umlaut, a double space) find the same entry;
// case and punctuation still count.
#pragma once

#include <string>
#include <string_view>

namespace nmt::memory {

std::string segment_key(std::string_view text);

}  // namespace nmt::memory
