// A translated HTML fragment read back into pieces of text, each with the
// data- attributes of the elements around it: how a document's paragraph,
// sent to the HTML translator with its runs as <span data-k="..."> and its
// kept objects as empty <span data-a="...">, comes back as runs.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nmt::document {

struct FragmentPiece {
  std::string text;  // decoded text; tags of elements without a data- attribute as the fragment spells them
  std::vector<std::pair<std::string, std::string>> marks;  // data- attributes around it, outermost first
  bool empty_element = false;  // an element that holds nothing: the last mark is its own

  // The innermost mark named `name` ("data-k"), or nullptr.
  const std::string* mark(const std::string& name) const;
};

// Adjacent pieces with the same marks are joined.
std::vector<FragmentPiece> read_fragment(const std::string& html);

}  // namespace nmt::document
