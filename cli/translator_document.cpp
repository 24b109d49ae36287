#include "cli/translator_document.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "decode/html_translation.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::cli {

std::string resolved_format(std::string format, const std::string& input, const std::string& output) {
  if (format == "txt") format = "text";
  if (format == "auto") {
    const std::string ext = std::filesystem::path(input).extension().string();
    const auto doc = document::document_format(ext);
    format = input.empty() || ext.empty()                        ? "text"
             : doc                                               ? document::format_name(*doc)
             : (ext == ".html" || ext == ".htm" || ext == ".xhtml") ? "html"
                                                                    : "text";
  }
  const auto doc = document::document_format(format);
  if (!doc) return format;
  if (input.empty()) throw UsageError("--format " + format + " translates a document: name it with --input FILE.");
  const bool zipped = *doc != document::DocumentFormat::kSrt && *doc != document::DocumentFormat::kMarkdown;
  if (zipped && output.empty()) {
    throw UsageError("A ." + format + " document is written to a file: name it with --output FILE.");
  }
  return format;
}

int translate_document_file(decode::Translator& translator, const DocumentInput& input, TranslationOutput& out) {
  const document::DocumentLimits limits;
  std::error_code ec;
  if (std::filesystem::is_directory(input.path, ec)) throw DataError("The input " + input.path + " is a directory, not a file.");
  const auto size = std::filesystem::file_size(input.path, ec);
  if (!ec && static_cast<int64_t>(size) > limits.max_bytes) {
    throw DataError("The document " + input.path + " has " + std::to_string(size) + " bytes; at most " +
                    std::to_string(limits.max_bytes) + " are translated.");
  }
  auto doc = document::open_document(input.format, read_file_bytes(input.path), input.path, limits);
  decode::HtmlTranslator html(translator, nullptr, nullptr, input.alignment_layer);
  int64_t sentences = 0, long_sentences = 0;
  const bool terminal = ::isatty(STDERR_FILENO);
  const auto translate = [&](const std::vector<std::string>& texts) {
    std::vector<std::string> out_texts;
    for (auto& t : html.translate(texts)) {
      sentences += t.sentences;
      long_sentences += t.long_sentences;
      out_texts.push_back(std::move(t.html));
    }
    return out_texts;
  };
  const auto progress = [&](size_t done, size_t total) {
    if (terminal) std::cerr << "\rtranslator: " << done << " of " << total << " paragraphs translated" << std::flush;
  };
  const std::string translated = document::translate_document(*doc, input.target_language, translate, 64, progress);
  if (terminal && !doc->texts().empty()) std::cerr << "\n";
  out.stream() << translated;
  out.commit();
  std::cerr << "translator: " << input.path << " (" << document::format_name(input.format) << "): "
            << doc->texts().size() << " paragraph(s), " << sentences << " sentence(s)";
  if (long_sentences > 0) std::cerr << ", " << long_sentences << " of them translated in pieces";
  std::cerr << ".\n";
  return kExitOk;
}

}  // namespace nmt::cli
