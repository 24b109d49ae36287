#include "document/epub_document.h"

#include <map>

#include "document/translated_fragment.h"
#include "document/xml_part.h"
#include "text/html_document.h"
#include "util/error.h"

namespace nmt::document {
namespace {

// "OEBPS/content.opf" + "../Text/ch1.xhtml" and the like.
std::string resolve(const std::string& base_file, const std::string& href) {
  std::string path = base_file.substr(0, base_file.rfind('/') + 1) + href.substr(0, href.find('#'));
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t end = std::min(path.find('/', at), path.size());
    const std::string part = path.substr(at, end - at);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    at = end + 1;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// XHTML is XML: the one entity HTML's escaping writes that XML does not know.
std::string as_xml_text(std::string html) {
  for (size_t at = html.find("&nbsp;"); at != std::string::npos; at = html.find("&nbsp;", at)) {
    html.replace(at, 6, "&#160;");
  }
  return html;
}

class EpubDocument : public Document {
 public:
  EpubDocument(std::string bytes, const std::string& name, const DocumentLimits& limits)
      : archive_(std::move(bytes), name, limits.archive) {
    if (!archive_.has("META-INF/container.xml")) {
      throw DataError(name + " is not an EPUB book (it has no META-INF/container.xml).");
    }
    pugi::xml_document container;
    parse_xml_part(container, archive_.read("META-INF/container.xml"), name + ": META-INF/container.xml");
    opf_path_ = container.select_node("//*[local-name()='rootfile']").node().attribute("full-path").value();
    if (opf_path_.empty() || !archive_.has(opf_path_)) {
      throw DataError(name + ": META-INF/container.xml names no package file that the book holds.");
    }
    parse_xml_part(opf_, archive_.read(opf_path_), name + ": " + opf_path_);
    std::map<std::string, std::string> pages;  // manifest id -> entry
    for (const auto& item : opf_.select_nodes("//*[local-name()='manifest']/*[local-name()='item']")) {
      pages[item.node().attribute("id").value()] = resolve(opf_path_, item.node().attribute("href").value());
    }
    for (const auto& ref : opf_.select_nodes("//*[local-name()='spine']/*[local-name()='itemref']")) {
      const auto page = pages.find(ref.node().attribute("idref").value());
      if (page == pages.end() || !archive_.has(page->second)) continue;
      add_page(page->second);
      if (static_cast<int64_t>(texts_.size()) > limits.max_texts) throw DataError(name + " has too many pages to translate.");
    }
    title_ = opf_.select_node("//*[local-name()='metadata']/*[local-name()='title']").node();
    if (title_ && !element_text(title_).empty()) texts_.push_back(text::escape_html_text(element_text(title_)));
  }

  const std::vector<std::string>& texts() const override { return texts_; }

  std::string render(const std::vector<std::string>& translations, const std::string& target) override {
    if (translations.size() != texts_.size()) throw std::logic_error("EpubDocument::render: one translation per text.");
    for (size_t i = 0; i < pages_.size(); ++i) {
      archive_.replace(pages_[i].entry, pages_[i].prolog + as_xml_text(translations[i]));
    }
    if (texts_.size() > pages_.size()) title_.text().set(plain_text(translations.back()).c_str());
    for (const auto& language : opf_.select_nodes("//*[local-name()='metadata']/*[local-name()='language']")) {
      language.node().text().set(target.c_str());
    }
    archive_.replace(opf_path_, write_xml_part(opf_));
    return archive_.bytes();
  }

 private:
  struct Page {
    std::string entry, prolog;  // the XML declaration and whatever comes before the doctype or <html>
  };

  void add_page(const std::string& entry) {
    std::string xhtml = archive_.read(entry);
    size_t start = std::string::npos;
    for (const char* open : {"<!DOCTYPE", "<!doctype", "<html"}) start = std::min(start, xhtml.find(open));
    if (start == std::string::npos) start = 0;
    pages_.push_back({entry, xhtml.substr(0, start)});
    texts_.push_back(xhtml.substr(start));
  }

  // The title's translation as text: its entities decoded by the same reader as a paragraph's.
  static std::string plain_text(const std::string& html) {
    std::string out;
    for (const FragmentPiece& piece : read_fragment(html)) out += piece.text;
    return out;
  }

  ZipArchive archive_;
  std::string opf_path_;
  pugi::xml_document opf_;
  pugi::xml_node title_;
  std::vector<Page> pages_;
  std::vector<std::string> texts_;
};

}  // namespace

std::unique_ptr<Document> open_epub(std::string bytes, const std::string& name, const DocumentLimits& limits) {
  return std::make_unique<EpubDocument>(std::move(bytes), name, limits);
}

}  // namespace nmt::document
