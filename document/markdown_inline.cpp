#include "document/markdown_inline.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "document/translated_fragment.h"
#include "text/html_document.h"

namespace nmt::document {
namespace {

constexpr int kMaxNesting = 32;

// The index of the `close` that ends a span opened before `from`, or npos.
size_t closing(const std::string& s, size_t from, size_t end, const std::string& close) {
  for (size_t at = s.find(close, from); at != std::string::npos && at + close.size() <= end; at = s.find(close, at + 1)) {
    if (at > from && !std::isspace(static_cast<unsigned char>(s[at - 1])) && s[at - 1] != '\\') return at;
  }
  return std::string::npos;
}

// The index just past the bracket matching s[open] ('[' or '('), or npos.
size_t matching(const std::string& s, size_t open, size_t end) {
  const char o = s[open], c = o == '[' ? ']' : ')';
  int depth = 0;
  for (size_t i = open; i < end; ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

bool has_words(const std::string& html) {
  bool tag = false;
  for (char c : html) {
    if (c == '<') tag = true;
    else if (c == '>') tag = false;
    else if (!tag && std::isalnum(static_cast<unsigned char>(c))) return true;
    else if (!tag && static_cast<unsigned char>(c) >= 0x80) return true;
  }
  return false;
}

}  // namespace

MarkdownInline::MarkdownInline(const std::string& markdown) {
  // The markers below are data- attributes: inline HTML that has its own
  // stays kept pieces, as its tags would otherwise read as markers.
  html_inline_ = markdown.find("data-") == std::string::npos;
  html_ = parse(markdown, 0, markdown.size());
  if (!has_words(html_)) html_.clear();
}

namespace {

// Where a tag starting at s[i] ends ("<x ...>", "</x>"), or npos.
size_t tag_end(const std::string& s, size_t i, size_t end) {
  if (s[i] != '<' || i + 1 >= end || !(std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '/')) {
    return std::string::npos;
  }
  const size_t close = s.find('>', i);
  return close < end ? close + 1 : std::string::npos;
}

// An autolink, <https://...> or <someone@example.com>: a tag's spelling
// with a scheme or an address and no space.
bool autolink(const std::string& s, size_t i, size_t to) {
  const std::string inner = s.substr(i + 1, to - i - 2);
  return inner.find_first_of(" \t\n") == std::string::npos && inner.find_first_of(":@") != std::string::npos;
}

// Where a stretch kept verbatim starting at s[i] ends (a backslash escape, a
// code span, an autolink or a tag not passed on as HTML, an image), or npos.
size_t verbatim_end(const std::string& s, size_t i, size_t end) {
  const char c = s[i];
  if (c == '\\' && i + 1 < end) return i + 2;
  if (c == '`') {
    size_t run = 0;
    while (i + run < end && s[i + run] == '`') ++run;
    const size_t close = s.find(std::string(run, '`'), i + run);
    return close == std::string::npos || close >= end ? i + run : close + run;
  }
  if (const size_t to = tag_end(s, i, end); to != std::string::npos) return to;  // an autolink, or inline HTML kept
  if (c == '!' && i + 1 < end && s[i + 1] == '[' && matching(s, i + 1, end) != std::string::npos) {
    const size_t label = matching(s, i + 1, end);
    return label < end && s[label] == '(' && matching(s, label, end) != std::string::npos ? matching(s, label, end)
                                                                                            : label;
  }
  return std::string::npos;
}

}  // namespace

std::string MarkdownInline::parse(const std::string& s, size_t begin, size_t end) {
  static thread_local int depth = 0;
  std::string out, text;
  const auto flush = [&] {
    out += text::escape_html_text(text);
    text.clear();
  };
  ++depth;
  for (size_t i = begin; i < end;) {
    const char c = s[i];
    if (const size_t to = tag_end(s, i, end); html_inline_ && to != std::string::npos && !autolink(s, i, to)) {
      flush();  // inline HTML stays HTML: the HTML reader keeps what it marks not to translate
      out += s.substr(i, to - i);
      i = to;
      continue;
    }
    if (const size_t to = verbatim_end(s, i, end); to != std::string::npos) {
      flush();
      out += "<span data-a=\"" + std::to_string(kept_.size()) + "\"></span>";
      kept_.push_back(s.substr(i, to - i));
      i = to;
      continue;
    }
    const size_t label_end = c == '[' ? matching(s, i, end) : std::string::npos;
    if (depth < kMaxNesting && label_end != std::string::npos && label_end < end && s[label_end] == '(' &&
        matching(s, label_end, end) != std::string::npos) {  // [text](destination)
      const size_t to = matching(s, label_end, end);
      flush();
      out += "<a data-m=\"" + std::to_string(destinations_.size()) + "\">";
      destinations_.push_back(s.substr(label_end, to - label_end));
      out += parse(s, i + 1, label_end - 1) + "</a>";
      i = to;
      continue;
    }
    if ((c == '*' || c == '_' || c == '~') && depth < kMaxNesting) {
      if (const size_t to = emphasis(s, i, begin, end, out, flush); to != std::string::npos) {
        i = to;
        continue;
      }
      size_t run = 0;
      while (i + run < end && s[i + run] == c && run < 3) ++run;
      text += s.substr(i, run);  // no closing delimiter: text
      i += run;
      continue;
    }
    text += c;
    ++i;
  }
  flush();
  --depth;
  return out;
}

template <typename Flush>
size_t MarkdownInline::emphasis(const std::string& s, size_t i, size_t begin, size_t end, std::string& out,
                                const Flush& flush) {
  const char c = s[i];
  size_t run = 0;
  while (i + run < end && s[i + run] == c && run < 3) ++run;
  const bool opens = i + run < end && !std::isspace(static_cast<unsigned char>(s[i + run])) &&
                     (c != '_' || i == begin || !std::isalnum(static_cast<unsigned char>(s[i - 1])));
  const std::string delimiter(c == '~' ? 2 : std::min<size_t>(run, 2), c);
  if (!opens || (c == '~' && run < 2)) return std::string::npos;
  const size_t close = closing(s, i + delimiter.size(), end, delimiter);
  if (close == std::string::npos) return std::string::npos;
  flush();
  const char* tag = c == '~' ? "s" : delimiter.size() == 2 ? "b" : "i";
  out += std::string("<") + tag + " data-d=\"" + std::to_string(delimiters_.size()) + "\">";
  delimiters_.push_back(delimiter);
  out += parse(s, i + delimiter.size(), close) + "</" + tag + ">";
  return close + delimiter.size();
}

std::string MarkdownInline::opening_of(const Mark& mark) const {
  if (const long kept = number(mark, "data-a", kept_.size()); kept >= 0) return kept_[static_cast<size_t>(kept)];
  if (number(mark, "data-m", destinations_.size()) >= 0) return "[";
  if (const long d = number(mark, "data-d", delimiters_.size()); d >= 0) return delimiters_[static_cast<size_t>(d)];
  return "";
}

std::string MarkdownInline::closing_of(const Mark& mark) const {
  if (const long link = number(mark, "data-m", destinations_.size()); link >= 0) {
    return "]" + destinations_[static_cast<size_t>(link)];
  }
  if (const long d = number(mark, "data-d", delimiters_.size()); d >= 0) return delimiters_[static_cast<size_t>(d)];
  return "";
}

long MarkdownInline::number(const Mark& mark, const char* name, size_t count) {
  if (mark.first != name) return -1;
  const long n = std::atol(mark.second.c_str());
  return n >= 0 && static_cast<size_t>(n) < count ? n : -1;
}

std::string MarkdownInline::markdown(const std::string& translated_html) const {
  std::string out;
  std::vector<Mark> open;  // the marked elements open in `out`, outermost first
  const auto kept = [&](const Mark& m) { return number(m, "data-a", kept_.size()) >= 0; };
  for (const FragmentPiece& piece : read_fragment(translated_html)) {
    std::vector<Mark> marks = piece.marks;
    if (piece.empty_element) marks.pop_back();  // its own: opened and closed below
    size_t common = 0;
    while (common < open.size() && common < marks.size() && open[common] == marks[common]) ++common;
    for (; open.size() > common; open.pop_back()) out += closing_of(open.back());
    for (size_t k = common; k < marks.size(); ++k) {
      out += opening_of(marks[k]);
      open.push_back(marks[k]);
    }
    if (piece.empty_element) out += opening_of(piece.marks.back()) + closing_of(piece.marks.back());
    // What a kept element holds is its Markdown, written where it opened.
    if (std::none_of(marks.begin(), marks.end(), kept)) out += piece.text;
  }
  for (; !open.empty(); open.pop_back()) out += closing_of(open.back());
  return out;
}

}  // namespace nmt::document
