// translator --input FILE --format docx|odt|pptx|odp|epub|srt|md (or auto,
// from the file's extension): the document translated whole with its
// formatting (document/document.h), written to --output whole or not at all.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/translator_output.h"
#include "decode/translation.h"
#include "document/document.h"

namespace nmt::cli {

struct DocumentInput {
  std::string path;                      // --input
  document::DocumentFormat format;
  std::string target_language;           // the model's, for an EPUB's metadata
  std::optional<int64_t> alignment_layer;  // --attention-layer when given
};

// --format as given ("auto", "txt", ...) made one of "text", "html" or a
// document's: auto goes by --input's extension (text without one). A
// UsageError for a document without --input, or in a zip archive without --output.
std::string resolved_format(std::string format, const std::string& input, const std::string& output);

// Prints progress (on a terminal) and a summary on standard error. Returns the exit code.
int translate_document_file(decode::Translator& translator, const DocumentInput& input, TranslationOutput& out);

}  // namespace nmt::cli
