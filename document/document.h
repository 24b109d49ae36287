// Documents translated whole (SPEC: translator --format, the server's
// /translate_file): a document gives the HTML fragments it is to be
// translated as, in order, and is rebuilt from their translations. The
// translator turns fragments into translations with their markup carried by
// attention (decode/html_translation.h); a document knows nothing of models.
//
//   docx, odt, pptx, odp   document/office_document.h
//   epub                   document/epub_document.h
//   srt                    document/subtitle_document.h
//   md                     document/markdown_document.h
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "document/zip_archive.h"

namespace nmt::document {

enum class DocumentFormat { kDocx, kOdt, kPptx, kOdp, kEpub, kSrt, kMarkdown };

struct DocumentLimits {
  ArchiveLimits archive;
  int64_t max_bytes = 64ll << 20;  // the file itself
  int64_t max_texts = 200000;      // fragments to translate
};

class Document {
 public:
  virtual ~Document() = default;
  // The HTML fragments (or, for an EPUB, pages) to translate, in order.
  virtual const std::vector<std::string>& texts() const = 0;
  // The file translated: `translations` one per text, as HTML; `target` the
  // target language's code (an EPUB's metadata names it).
  virtual std::string render(const std::vector<std::string>& translations, const std::string& target) = 0;
};

// "docx", "srt", ... (any case, with or without a leading dot, or a file
// name): the format, or nothing for text, HTML and anything unknown.
std::optional<DocumentFormat> document_format(const std::string& name_or_extension);
// "docx", "md", ...
std::string format_name(DocumentFormat format);
// Every extension documents come in: ".docx", ".odt", ".pptx", ".odp", ".epub", ".srt", ".md".
const std::vector<std::string>& document_extensions();

// Reads a document; a DataError naming `name` for one that is damaged,
// refused by `limits`, or not of `format` at all.
std::unique_ptr<Document> open_document(DocumentFormat format, std::string bytes, const std::string& name,
                                        const DocumentLimits& limits = {});

// Translates a chunk of HTML texts (the command line's HtmlTranslator, the
// server's batcher): one translation per text, in order.
using ChunkTranslator = std::function<std::vector<std::string>(const std::vector<std::string>&)>;
// Told the texts done and the texts in all after each chunk.
using DocumentProgress = std::function<void(size_t done, size_t total)>;

// The document translated `chunk` texts at a time (so that a large one
// shares the translator with other work and shows progress) and rendered.
std::string translate_document(Document& document, const std::string& target, const ChunkTranslator& translate,
                               size_t chunk = 64, const DocumentProgress& progress = nullptr);

}  // namespace nmt::document
