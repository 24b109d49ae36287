// The XML reader and the paragraph rebuilding on arbitrary parts: arbitrary
// bytes as a .docx's body, an .odt's content and a .pptx's slide, and as
// subtitles and Markdown. Our error or a document; an identity translation
// rebuilds a part that parses again with the same text in its paragraphs.
#include <cstdlib>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "document/document.h"
#include "document/zip_archive.h"
#include "fuzz_support.h"
#include "tests/document_test_util.h"

namespace {

using nmt::document::DocumentFormat;

void office(DocumentFormat format, const std::vector<std::pair<std::string, std::string>>& entries,
            const std::string& part) {
  const std::string archive = nmt::test::zip_of(entries);
  nmt::fuzz::expect_only_our_errors([&] {
    auto doc = nmt::document::open_document(format, archive, "fuzz");
    const std::string out = doc->render(doc->texts(), "de");
    pugi::xml_document rebuilt;
    const std::string xml = nmt::document::ZipArchive(out, "rebuilt").read(part);
    if (!rebuilt.load_buffer(xml.data(), xml.size())) std::abort();  // what we write must parse
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  office(DocumentFormat::kDocx, {{"word/document.xml", bytes}}, "word/document.xml");
  office(DocumentFormat::kOdt, {{"mimetype", "application/vnd.oasis.opendocument.text"}, {"content.xml", bytes}},
         "content.xml");
  office(DocumentFormat::kPptx, {{"ppt/presentation.xml", "<p/>"}, {"ppt/slides/slide1.xml", bytes}},
         "ppt/slides/slide1.xml");
  for (const auto format : {DocumentFormat::kSrt, DocumentFormat::kMarkdown}) {
    nmt::fuzz::expect_only_our_errors([&] {
      auto doc = nmt::document::open_document(format, bytes, "fuzz");
      doc->render(doc->texts(), "de");
    });
  }
  return 0;
}
