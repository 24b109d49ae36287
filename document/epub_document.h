// EPUB books: every document of the spine (XHTML) translated through the
// HTML path with its markup kept (decode/html_translation.h), the book's
// title translated and its language (dc:language) set to the target. Every
// other entry (the mimetype first and stored, images, styles, fonts, the
// navigation files) is copied byte for byte.
#pragma once

#include <memory>
#include <string>

#include "document/document.h"

namespace nmt::document {

std::unique_ptr<Document> open_epub(std::string bytes, const std::string& name, const DocumentLimits& limits);

}  // namespace nmt::document
