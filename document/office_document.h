// Office documents: Word (.docx) and PowerPoint (.pptx) files of Office Open
// XML, and OpenDocument text (.odt) and presentations (.odp). Every part
// people see is translated, paragraph by paragraph (document/paragraph_text.h):
//   .docx  body, tables, text boxes, headers, footers, footnotes, endnotes, comments
//   .pptx  slides (their shapes, tables, text boxes) and speaker notes
//   .odt   body, tables, frames, notes, headers and footers (styles.xml)
//   .odp   slides and speaker notes
// and the document's title (docProps/core.xml, meta.xml). Parts without
// such text, and every other entry (images, styles, relationships), are
// copied byte for byte.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "document/document.h"

namespace nmt::document {

std::unique_ptr<Document> open_office_document(DocumentFormat format, std::string bytes, const std::string& name,
                                               const DocumentLimits& limits);

}  // namespace nmt::document
