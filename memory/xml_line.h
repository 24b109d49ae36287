// The line of a byte offset in an XML file, for messages that name where a
// file read as XML is wrong (TMX, TBX).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

namespace nmt::memory {

// 1 for the first line; an offset outside the text counts as its nearer end.
inline size_t xml_line(const std::string& xml, std::ptrdiff_t offset) {
  const auto end = xml.begin() + std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(xml.size()));
  return 1 + static_cast<size_t>(std::count(xml.begin(), end, '\n'));
}

}  // namespace nmt::memory
