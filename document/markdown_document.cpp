#include "document/markdown_document.h"

#include <regex>

#include "document/markdown_inline.h"
#include "text/utf8.h"
#include "util/error.h"

namespace nmt::document {
namespace {

// A piece of the output: a line's bytes kept, or a translated unit between a prefix and a suffix.
struct Piece {
  std::string kept;         // written as it is when `unit` < 0
  int unit = -1;            // index into the units
  std::string prefix, suffix;
  bool joins_next = false;  // the next piece is on the same line (a table's cells)
};

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

class MarkdownDocument : public Document {
 public:
  MarkdownDocument(const std::string& bytes, const std::string& name, const DocumentLimits& limits) {
    if (text::find_invalid_utf8(bytes) != bytes.size()) throw DataError(name + " is not valid UTF-8 text.");
    std::vector<std::string> lines;
    for (size_t at = 0; at < bytes.size();) {
      const size_t end = std::min(bytes.find('\n', at), bytes.size());
      lines.push_back(bytes.substr(at, end - at));
      at = end + 1;
    }
    trailing_newline_ = !bytes.empty() && bytes.back() == '\n';
    read_blocks(lines);
    if (static_cast<int64_t>(texts_.size()) > limits.max_texts) throw DataError(name + " has too many paragraphs to translate.");
  }

  const std::vector<std::string>& texts() const override { return texts_; }

  std::string render(const std::vector<std::string>& translations, const std::string&) override {
    if (translations.size() != texts_.size()) throw std::logic_error("MarkdownDocument::render: one translation per text.");
    std::string out;
    for (size_t i = 0; i < pieces_.size(); ++i) {
      const Piece& p = pieces_[i];
      out += p.unit < 0 ? p.kept
                        : p.prefix + units_[static_cast<size_t>(p.unit)].markdown(translations[static_cast<size_t>(p.unit)]) +
                              p.suffix;
      if (!p.joins_next && (i + 1 < pieces_.size() || trailing_newline_)) out += '\n';
    }
    return out;
  }

 private:
  void keep(const std::string& line) { pieces_.push_back({line, -1, "", "", false}); }

  // `text` translated between `prefix` and `suffix`; kept as it is when it holds no words.
  void unit(const std::string& prefix, const std::string& text, const std::string& suffix) {
    MarkdownInline in(text);
    if (in.html().empty()) {
      keep(prefix + text + suffix);
      return;
    }
    texts_.push_back(in.html());
    units_.push_back(std::move(in));
    pieces_.push_back({"", static_cast<int>(units_.size() - 1), prefix, suffix, false});
  }

  void table_row(const std::string& line) {
    static const std::regex rule(R"(^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$)");
    if (std::regex_match(line, rule)) return keep(line);
    // Cells between unescaped pipes, each translated on its own, the pipes and padding kept.
    size_t at = 0;
    std::vector<std::pair<size_t, size_t>> cells;
    size_t start = 0;
    for (size_t i = 0; i <= line.size(); ++i) {
      if (i == line.size() || (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))) {
        cells.emplace_back(start, i);
        start = i + 1;
      }
    }
    for (size_t c = 0; c < cells.size(); ++c) {
      auto [b, e] = cells[c];
      while (b < e && line[b] == ' ') ++b;
      while (e > b && line[e - 1] == ' ') --e;
      if (b == e) continue;
      unit(line.substr(at, b - at), line.substr(b, e - b), "");
      pieces_.back().joins_next = true;
      at = e;
    }
    keep(line.substr(at));
  }

  struct Patterns {
    std::regex fence{R"(^ {0,3}(```|~~~).*)"};
    std::regex heading{R"(^( {0,3}#{1,6}[ \t]+)(.*?)([ \t]+#+[ \t]*)?$)"};
    std::regex item{R"(^(\s*(?:>\s?)*\s*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)(.*)$)"};
    std::regex quote{R"(^(\s*(?:>\s?)+)(.*)$)"};
    std::regex rule{R"(^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$|^ {0,3}(=+|-+)[ \t]*$)"};
    std::regex definition{R"(^ {0,3}\[[^\]]+\]:\s.*)"};
  };
  static const Patterns& patterns() {
    static const Patterns p;
    return p;
  }

  void read_blocks(const std::vector<std::string>& lines) {
    size_t i = front_matter(lines);
    bool after_blank = true;
    for (; i < lines.size(); ++i) {
      if (code_fence(lines[i])) {
        after_blank = false;
      } else if (blank(lines[i])) {
        keep(lines[i]);
        after_blank = true;
      } else {
        read_line(lines, i, after_blank);
        after_blank = false;
      }
    }
  }

  // Front matter ("---" to "---" or "..."), kept: the line after it.
  size_t front_matter(const std::vector<std::string>& lines) {
    if (lines.empty() || lines[0] != "---") return 0;
    keep(lines[0]);
    for (size_t i = 1; i < lines.size(); ++i) {
      keep(lines[i]);
      if (lines[i] == "---" || lines[i] == "...") return i + 1;
    }
    return lines.size();
  }

  // Whether the line opens, holds or closes fenced code (kept as it is).
  bool code_fence(const std::string& line) {
    std::smatch m;
    if (!in_fence_ && !std::regex_match(line, m, patterns().fence)) return false;
    keep(line);
    if (!in_fence_) {
      fence_mark_ = m[1];
      in_fence_ = true;
      return true;
    }
    const size_t first = line.find_first_not_of(' ');
    in_fence_ = !(first != std::string::npos && line.compare(first, fence_mark_.size(), fence_mark_) == 0 &&
                  line.find_first_not_of(fence_mark_.substr(0, 1) + " \t\r", first) == std::string::npos);
    return true;
  }

  // A line that is not code or blank; a paragraph takes the lines that continue it (moving `i`).
  void read_line(const std::vector<std::string>& lines, size_t& i, bool after_blank) {
    const Patterns& p = patterns();
    const std::string& line = lines[i];
    std::smatch m;
    // Indented code (after a blank line; a list item's indented continuation is kept too), rules,
    // link definitions and HTML blocks stay as they are.
    const bool indented_code = after_blank && (line.rfind("    ", 0) == 0 || line[0] == '\t');
    if (indented_code || std::regex_match(line, p.rule) || std::regex_match(line, p.definition) ||
        (line[0] == '<' && line.find('>') != std::string::npos)) {
      keep(line);
    } else if (std::regex_match(line, m, p.heading)) {
      unit(m[1], m[2], m[3]);
    } else if (line.find('|') != std::string::npos && line.find_first_not_of(' ') == line.find('|')) {
      table_row(line);
    } else if (std::regex_match(line, m, p.item) || std::regex_match(line, m, p.quote)) {
      unit(m[1], m[2], "");
    } else {
      std::string text = line;
      while (i + 1 < lines.size() && continues_paragraph(lines[i + 1])) {
        ++i;
        text += " " + lines[i].substr(lines[i].find_first_not_of(" \t"));
      }
      const size_t indent = text.find_first_not_of(" \t");
      unit(text.substr(0, indent), text.substr(indent), "");
    }
  }

  static bool continues_paragraph(const std::string& line) {
    const Patterns& p = patterns();
    return !blank(line) && !std::regex_match(line, p.item) && !std::regex_match(line, p.heading) &&
           !std::regex_match(line, p.fence) && !std::regex_match(line, p.rule) && !std::regex_match(line, p.quote);
  }

  std::vector<MarkdownInline> units_;
  std::vector<std::string> texts_;
  std::vector<Piece> pieces_;
  std::string fence_mark_;
  bool in_fence_ = false, trailing_newline_ = false;
};

}  // namespace

std::unique_ptr<Document> open_markdown(std::string bytes, const std::string& name, const DocumentLimits& limits) {
  return std::make_unique<MarkdownDocument>(bytes, name, limits);
}

}  // namespace nmt::document
