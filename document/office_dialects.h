// The paragraph dialects of the office formats (document/paragraph_text.h):
// which elements hold text, which wrap it, which are left alone. Internal to
// document/.
#pragma once

#include "document/paragraph_text.h"

namespace nmt::document {

const ParagraphDialect& wordprocessing_dialect();  // .docx: w:p, w:r, w:t
const ParagraphDialect& drawing_dialect();         // .pptx: a:p, a:r, a:t
// .odt, .odp: text:p, text:h, text:span. `part`: the styles it defines,
// for code styles named through a parent (P1 from Preformatted_20_Text).
ParagraphDialect opendocument_dialect(const pugi::xml_document& part);
const ParagraphDialect& title_dialect();           // dc:title, its text as it is

// Whether a style name is one of code (pandoc's VerbatimChar, SourceCode,
// LibreOffice's Source_20_Text, Preformatted_20_Text ...).
bool code_style(const std::string& style);

}  // namespace nmt::document
