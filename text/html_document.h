// An HTML page or fragment as text to translate: parsed with gumbo (the HTML5
// parsing algorithm browsers follow, so markup is understood as a browser
// understands it), its text gathered into runs, one per stretch of a block's
// text with the inline elements inside it (b, i, em, strong, a, span, ...),
// plus the title, alt and placeholder attributes. The document is rebuilt by
// replacing only those runs in the source bytes: every tag, comment, entity
// and byte of whitespace outside them stays exactly as it was. script,
// style, pre, textarea, svg, math, comments and anything marked
// translate="no" (or class="notranslate") are left alone; inline ones (code,
// kbd, samp, var, a span marked so) stay in their sentence's run as pieces
// kept as they are, so the sentence around them is translated whole.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/span.h"

namespace nmt::text {

// An inline element inside a run: its own tags as the source spells them and
// the text it covers.
struct InlineElement {
  Span open;                  // its start tag in the document
  Span close;                 // its end tag; empty where the source leaves it implied
  std::string name;           // "b", "a", ...
  size_t begin = 0, end = 0;  // the text it covers, in the run's text
  int parent = -1;            // the run's element enclosing it, -1 for none
  // Kept as it is (inline code, translate="no"): `open` spans the whole
  // element, `close` is empty, and it covers none of the run's text.
  bool atom = false;
};

// Text to translate and where it goes back.
struct HtmlRun {
  Span source;       // the document's bytes that the run's output replaces
  std::string text;  // its text, entities decoded
  std::vector<InlineElement> elements;  // in document order: a parent before its children
  bool attribute = false;               // an attribute's value: no elements
  bool quoted = true;                   // an attribute's value in quotes in the source
};

class HtmlDocument {
 public:
  // Parses `html` (valid UTF-8): a whole document when it starts with a
  // doctype or <html>, else a fragment as the content of a <body>. Never
  // fails on markup: the parser repairs what is broken, as browsers do.
  explicit HtmlDocument(std::string html);

  const std::string& source() const { return source_; }
  const std::vector<HtmlRun>& runs() const { return runs_; }

  // The document with each run replaced by its output: for a text run, HTML
  // (escaped text and tags); for an attribute, its new value, unescaped.
  std::string render(const std::vector<std::string>& outputs) const;
  // The source bytes of `span` (a start tag inside a run) with the
  // attribute runs inside it replaced by their outputs.
  std::string with_attributes(Span span, const std::vector<std::string>& outputs) const;

 private:
  void append_run_output(std::string& out, size_t run, const std::vector<std::string>& outputs) const;

  std::string source_;
  std::vector<HtmlRun> runs_;  // by their source's start
};

// Text for an HTML text node: &, <, > and no-break spaces escaped.
std::string escape_html_text(std::string_view text);
// Text for any place in HTML, SVG or XML, attribute values included: &, <, >, " and ' escaped.
std::string escape_markup(std::string_view text);

}  // namespace nmt::text
