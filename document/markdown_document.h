// Markdown (.md): its structure kept line for line. Fenced and indented
// code, front matter, HTML blocks, rules, link definitions and table rules
// are left as they are; a heading, a list item, a quote's line, a table cell
// and a paragraph (its lines joined) are translated with their inline
// emphasis and links (document/markdown_inline.h) behind the same markers,
// indentation and prefixes.
#pragma once

#include <memory>
#include <string>

#include "document/document.h"

namespace nmt::document {

std::unique_ptr<Document> open_markdown(std::string bytes, const std::string& name, const DocumentLimits& limits);

}  // namespace nmt::document
