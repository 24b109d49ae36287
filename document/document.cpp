#include "document/document.h"

#include <algorithm>
#include <cctype>

#include "document/epub_document.h"
#include "document/markdown_document.h"
#include "document/office_document.h"
#include "document/subtitle_document.h"
#include "util/error.h"

namespace nmt::document {
namespace {

struct Known {
  DocumentFormat format;
  const char* name;
};
constexpr Known kFormats[] = {{DocumentFormat::kDocx, "docx"}, {DocumentFormat::kOdt, "odt"},
                              {DocumentFormat::kPptx, "pptx"}, {DocumentFormat::kOdp, "odp"},
                              {DocumentFormat::kEpub, "epub"}, {DocumentFormat::kSrt, "srt"},
                              {DocumentFormat::kMarkdown, "md"}};

}  // namespace

std::optional<DocumentFormat> document_format(const std::string& name_or_extension) {
  const size_t dot = name_or_extension.rfind('.');
  std::string ext = dot == std::string::npos ? name_or_extension : name_or_extension.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "markdown") ext = "md";
  for (const Known& k : kFormats) {
    if (ext == k.name) return k.format;
  }
  return std::nullopt;
}

std::string format_name(DocumentFormat format) {
  for (const Known& k : kFormats) {
    if (k.format == format) return k.name;
  }
  return "?";
}

const std::vector<std::string>& document_extensions() {
  static const std::vector<std::string> extensions = [] {
    std::vector<std::string> out;
    for (const Known& k : kFormats) out.push_back(std::string(".") + k.name);
    return out;
  }();
  return extensions;
}

std::unique_ptr<Document> open_document(DocumentFormat format, std::string bytes, const std::string& name,
                                        const DocumentLimits& limits) {
  if (static_cast<int64_t>(bytes.size()) > limits.max_bytes) {
    throw DataError(name + " has " + std::to_string(bytes.size()) + " bytes; documents of at most " +
                    std::to_string(limits.max_bytes) + " bytes are translated.");
  }
  switch (format) {
    case DocumentFormat::kDocx:
    case DocumentFormat::kOdt:
    case DocumentFormat::kPptx:
    case DocumentFormat::kOdp:
      return open_office_document(format, std::move(bytes), name, limits);
    case DocumentFormat::kEpub:
      return open_epub(std::move(bytes), name, limits);
    case DocumentFormat::kSrt:
      return open_subtitles(std::move(bytes), name, limits);
    case DocumentFormat::kMarkdown:
      return open_markdown(std::move(bytes), name, limits);
  }
  throw std::logic_error("open_document: unknown format");
}

std::string translate_document(Document& document, const std::string& target, const ChunkTranslator& translate,
                               size_t chunk, const DocumentProgress& progress) {
  const auto& texts = document.texts();
  std::vector<std::string> translations;
  translations.reserve(texts.size());
  for (size_t first = 0; first < texts.size(); first += chunk) {
    const size_t end = std::min(texts.size(), first + std::max<size_t>(chunk, 1));
    auto done = translate(std::vector<std::string>(texts.begin() + static_cast<std::ptrdiff_t>(first),
                                                   texts.begin() + static_cast<std::ptrdiff_t>(end)));
    if (done.size() != end - first) throw std::logic_error("translate_document: one translation per text is needed.");
    for (auto& t : done) translations.push_back(std::move(t));
    if (progress) progress(end, texts.size());
  }
  return document.render(translations, target);
}

}  // namespace nmt::document
