// Checks on UTF-8 text, shared by the corpus reader, the translator's input
// and the server's requests.
#pragma once

#include <cstddef>
#include <string_view>

namespace nmt::text {

// Offset of the first byte that is not valid UTF-8 (or is NUL) in text, or
// text.size() when all of it is valid.
size_t find_invalid_utf8(std::string_view text);

// Characters of UTF-8 text: every byte but continuation bytes starts one.
size_t count_code_points(std::string_view text);

}  // namespace nmt::text
