#include "document/office_document.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "document/office_dialects.h"
#include "document/paragraph_text.h"
#include "document/xml_part.h"
#include "util/error.h"

namespace nmt::document {
namespace {

struct PartPlan {
  std::string entry;
  const ParagraphDialect* dialect;  // nullptr: OpenDocument's, made from the part's own styles
};

// The number in "ppt/slides/slide12.xml", for slide order.
long number_in(const std::string& entry) {
  const size_t end = entry.rfind('.');
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(entry[begin - 1]))) --begin;
  return begin < end ? std::stol(entry.substr(begin, end - begin)) : 0;
}

std::vector<PartPlan> matching(const std::vector<std::string>& names, const std::regex& pattern,
                               const ParagraphDialect& dialect) {
  std::vector<PartPlan> out;
  for (const auto& n : names) {
    if (std::regex_match(n, pattern)) out.push_back({n, &dialect});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const PartPlan& a, const PartPlan& b) { return number_in(a.entry) < number_in(b.entry); });
  return out;
}

void append(std::vector<PartPlan>& to, std::vector<PartPlan> more) { to.insert(to.end(), more.begin(), more.end()); }

// Which parts hold text people see, after checking that the archive is of the format claimed.
std::vector<PartPlan> parts_of(DocumentFormat format, const ZipArchive& zip, const std::string& name) {
  const auto& names = zip.names();
  std::vector<PartPlan> parts;
  const auto need = [&](const std::string& entry, const char* what) {
    if (!zip.has(entry)) throw DataError(name + " is not " + what + " (it has no " + entry + ").");
  };
  if (format == DocumentFormat::kDocx) {
    need("word/document.xml", "a Word document (.docx)");
    append(parts, matching(names, std::regex(R"(word/(document|footnotes|endnotes|comments)\.xml)"),
                           wordprocessing_dialect()));
    append(parts, matching(names, std::regex(R"(word/(header|footer)[0-9]*\.xml)"), wordprocessing_dialect()));
    append(parts, matching(names, std::regex(R"(docProps/core\.xml)"), title_dialect()));
  } else if (format == DocumentFormat::kPptx) {
    need("ppt/presentation.xml", "a PowerPoint presentation (.pptx)");
    append(parts, matching(names, std::regex(R"(ppt/slides/slide[0-9]+\.xml)"), drawing_dialect()));
    append(parts, matching(names, std::regex(R"(ppt/notesSlides/notesSlide[0-9]+\.xml)"), drawing_dialect()));
    append(parts, matching(names, std::regex(R"(docProps/core\.xml)"), title_dialect()));
  } else {
    const bool text = format == DocumentFormat::kOdt;
    const std::string mimetype = zip.has("mimetype") ? zip.read("mimetype") : "";
    const std::string expected = text ? "application/vnd.oasis.opendocument.text"
                                      : "application/vnd.oasis.opendocument.presentation";
    if (mimetype != expected || !zip.has("content.xml")) {
      throw DataError(name + " is not " + (text ? "an OpenDocument text (.odt)" : "an OpenDocument presentation (.odp)") +
                      " (its mimetype entry is \"" + mimetype.substr(0, 80) + "\").");
    }
    for (const char* entry : {"content.xml", "styles.xml"}) {
      if (zip.has(entry)) parts.push_back({entry, nullptr});
    }
    append(parts, matching(names, std::regex(R"(meta\.xml)"), title_dialect()));
  }
  return parts;
}

class OfficeDocument : public Document {
 public:
  OfficeDocument(DocumentFormat format, std::string bytes, const std::string& name, const DocumentLimits& limits)
      : archive_(std::move(bytes), name, limits.archive) {
    for (const PartPlan& plan : parts_of(format, archive_, name)) {
      Part part;
      part.entry = plan.entry;
      part.xml = std::make_unique<pugi::xml_document>();
      parse_xml_part(*part.xml, archive_.read(plan.entry), name + ": " + plan.entry);
      part.dialect = std::make_unique<ParagraphDialect>(plan.dialect ? *plan.dialect : opendocument_dialect(*part.xml));
      for (const pugi::xml_node& p : find_paragraphs(*part.xml, *part.dialect)) {
        ParagraphText text(p, *part.dialect);
        if (!text.translatable()) continue;
        where_.emplace_back(parts_.size(), part.paragraphs.size());
        texts_.push_back(text.html());
        part.paragraphs.push_back(std::move(text));
      }
      if (static_cast<int64_t>(texts_.size()) > limits.max_texts) {
        throw DataError(name + " has over " + std::to_string(limits.max_texts) +
                        " paragraphs; documents of at most that many are translated.");
      }
      if (!part.paragraphs.empty()) parts_.push_back(std::move(part));
    }
  }

  const std::vector<std::string>& texts() const override { return texts_; }

  std::string render(const std::vector<std::string>& translations, const std::string&) override {
    if (translations.size() != texts_.size()) throw std::logic_error("OfficeDocument::render: one translation per text.");
    // Nested paragraphs (in a text box, a note) first: their enclosing paragraph moves them whole.
    for (size_t i = translations.size(); i-- > 0;) {
      parts_[where_[i].first].paragraphs[where_[i].second].apply(translations[i]);
    }
    for (const Part& part : parts_) archive_.replace(part.entry, write_xml_part(*part.xml));
    return archive_.bytes();
  }

 private:
  struct Part {
    std::string entry;
    std::unique_ptr<pugi::xml_document> xml;
    std::unique_ptr<ParagraphDialect> dialect;  // the paragraphs hold it
    std::vector<ParagraphText> paragraphs;
  };
  ZipArchive archive_;
  std::vector<Part> parts_;
  std::vector<std::string> texts_;
  std::vector<std::pair<size_t, size_t>> where_;  // per text: its part and paragraph
};

}  // namespace

std::unique_ptr<Document> open_office_document(DocumentFormat format, std::string bytes, const std::string& name,
                                               const DocumentLimits& limits) {
  return std::make_unique<OfficeDocument>(format, std::move(bytes), name, limits);
}

}  // namespace nmt::document
