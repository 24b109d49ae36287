// What in a text must come out of translation as it went in: format
// placeholders of software strings (printf's %s, %1$s, %.2f, %(name)s;
// {0}, {name}, {{name}}, ${name}; :name only when asked, being too common in
// prose), inline tags as Weblate and gettext send them (<b>, </b>, <x id="1"/>),
// URLs, e-mail addresses, and literal strings the user lists. Found by a
// scanner of our own (no regular expressions: linear in the text, whatever
// it holds). A placeholder directly enclosed in quotes or brackets ('%s',
// "{0}", (%d)) takes them along: they belong to it, not to the sentence.
#pragma once

#include <string>
#include <vector>

#include "text/span.h"

namespace nmt::text {

struct PlaceholderOptions {
  bool enabled = true;       // off: nothing is protected, the text goes to the model as it is
  bool colon_names = false;  // also :name (SQL's and some frameworks' placeholders)
  bool tags = true;          // inline tags; off for text already parsed as HTML
  std::vector<std::string> literals;  // spans to keep verbatim wherever they occur (case-sensitive)
};

// The protected spans of `text`, in order, none overlapping (where two
// candidates overlap the earlier, then the longer, wins). Empty when disabled.
std::vector<Span> find_placeholders(const std::string& text, const PlaceholderOptions& options);

}  // namespace nmt::text
