#include "cli/translator_html.h"

#include <filesystem>
#include <iostream>

#include "decode/html_translation.h"
#include "decode/translation_stream.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::cli {
namespace {

constexpr int64_t kHtmlChunkLines = 500;  // fragments translated together
constexpr uintmax_t kMaxDocumentBytes = 64ull << 20;

struct Counts {
  int64_t documents = 0, sentences = 0, long_sentences = 0;
  std::vector<int64_t> invalid;  // 1-based line numbers
};

std::string read_document(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw DataError("The input " + path + " is a directory, not a file.");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxDocumentBytes) {
    throw DataError("The HTML file " + path + " has " + std::to_string(size) + " bytes; --format html reads at most " +
                    std::to_string(kMaxDocumentBytes) + " bytes of one document.");
  }
  return read_file_bytes(path);
}

void count(Counts& c, const decode::HtmlTranslation& t, int64_t line) {
  ++c.documents;
  c.sentences += t.sentences;
  c.long_sentences += t.long_sentences;
  if (t.invalid_utf8) c.invalid.push_back(line);
}

int report(const Counts& c, const HtmlInput& input, int64_t max_tokens) {
  std::cerr << "translator: " << c.documents << " HTML document(s), " << c.sentences << " sentence(s)";
  if (c.long_sentences > 0) {
    std::cerr << ", " << c.long_sentences << " of them longer than the model's " << max_tokens
              << " source tokens and translated in pieces";
  }
  std::cerr << ".\n";
  if (c.invalid.empty()) return kExitOk;
  std::cerr << "translator: error: " << c.invalid.size() << " fragment(s) of " << input.name
            << " are not valid UTF-8 (line " << line_numbers(c.invalid) << "); their translations were left empty.\n";
  return kExitData;
}

}  // namespace

int translate_html(decode::Translator& translator, const HtmlInput& input, TranslationOutput& out) {
  decode::HtmlTranslator html(translator, nullptr, nullptr, input.alignment_layer);
  Counts c;
  if (!input.file.empty()) {
    const auto t = html.translate({read_document(input.file)});
    if (t[0].invalid_utf8) throw DataError("The HTML file " + input.file + " is not valid UTF-8.");
    count(c, t[0], 1);
    out.stream() << t[0].html;
    out.commit();
    return report(c, input, translator.max_source_tokens());
  }
  const decode::LineSource source =
      input.texts.empty() ? decode::istream_lines(std::cin) : decode::vector_lines(input.texts);
  const int64_t chunk = input.interactive ? 1 : kHtmlChunkLines;
  std::vector<std::string> lines;
  bool more = true;
  while (more) {
    lines.clear();
    std::string line;
    while (static_cast<int64_t>(lines.size()) < chunk && (more = source(line))) lines.push_back(line);
    const auto translated = html.translate(lines);
    for (const auto& t : translated) {
      count(c, t, c.documents + 1);
      out.stream() << (t.invalid_utf8 ? std::string() : t.html) << '\n';
    }
    if (input.interactive) out.stream().flush();
  }
  out.commit();
  return report(c, input, translator.max_source_tokens());
}

}  // namespace nmt::cli
