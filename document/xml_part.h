// An XML part of a document (a .docx's word/document.xml, an .odt's
// content.xml, an EPUB's package file) parsed with pugixml and written back.
// pugixml rather than libxml2: it never reads a DTD, expands no entity but
// XML's five and character references, and reaches no network or file, so an
// entity bomb or an external entity cannot cost memory or leak a file; its
// DOM moves nodes without copying them, which is how a paragraph's runs are
// rebuilt around the nodes they hold (document/paragraph_text.h). Office
// parts never declare a DOCTYPE; one that does is refused.
#pragma once

#include <pugixml.hpp>

#include <string>

namespace nmt::document {

// Parses `xml`, named `name` in errors (the archive and the entry): a
// DataError for XML that is not well-formed, that declares a DOCTYPE, or
// that nests elements deeper than any document does.
void parse_xml_part(pugi::xml_document& doc, const std::string& xml, const std::string& name);

// The part written back: its declaration as it was, no indentation added.
std::string write_xml_part(const pugi::xml_document& doc);

// The text of an element's descendants, in order.
std::string element_text(const pugi::xml_node& node);

}  // namespace nmt::document
