// Markdown's inline syntax to HTML and back, for translating a block's text
// with its emphasis and links carried by attention (decode/html_translation.h):
// **strong** and __strong__ become <b>, *em* and _em_ <i>, ~~struck~~ <s>,
// [text](destination) an <a> whose text is translated; code spans, images,
// autolinks and backslash escapes are kept as they are (each an empty
// marker where it stood). Inline HTML stays HTML (unless the text has data-
// attributes, which the markers use: then it is kept as written), so that the HTML reader
// keeps what it marks not to translate (translate="no",
// class="notranslate", <code>) as it does in HTML documents. Back from the
// translation (read as a document's fragments are,
// document/translated_fragment.h), each element is written as the source
// wrote it, and inline HTML as the translation spells it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nmt::document {

class MarkdownInline {
 public:
  explicit MarkdownInline(const std::string& markdown);

  // The text as HTML to translate; "" when it holds no words.
  const std::string& html() const { return html_; }
  // The translation written back as Markdown.
  std::string markdown(const std::string& translated_html) const;

 private:
  using Mark = std::pair<std::string, std::string>;  // a data- attribute of the translation's HTML
  // The Markdown that opens / closes the element a mark names ("" for none
  // of ours); a kept marker opens as its verbatim text.
  std::string opening_of(const Mark& mark) const;
  std::string closing_of(const Mark& mark) const;
  // The number of `mark` when it is named `name` and below `count`; else -1.
  static long number(const Mark& mark, const char* name, size_t count);
  std::string parse(const std::string& s, size_t begin, size_t end);
  // **x**, *x*, _x_, ~~x~~ opening at s[i]: written to `out` (after `flush`),
  // returning where it ends; npos where no delimiter closes it.
  template <typename Flush>
  size_t emphasis(const std::string& s, size_t i, size_t begin, size_t end, std::string& out, const Flush& flush);

  std::vector<std::string> kept_;          // verbatim Markdown, by marker number
  std::vector<std::string> destinations_;  // "(url "title")" of links, by number
  std::vector<std::string> delimiters_;    // the delimiter an emphasis used, by number
  std::string html_;
  bool html_inline_ = true;  // inline HTML goes on as HTML (false: kept as it is, where it has data- attributes)
};

}  // namespace nmt::document
