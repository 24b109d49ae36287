#include "document/markdown_inline.h"

#include <gumbo.h>

#include <cctype>
#include <cstring>
#include <memory>

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
  html_ = parse(markdown, 0, markdown.size());
  if (!has_words(html_)) html_.clear();
}

namespace {

// Where a stretch kept verbatim starting at s[i] ends (a backslash escape, a
// code span, an autolink or inline HTML, an image), or npos.
size_t verbatim_end(const std::string& s, size_t i, size_t end) {
  const char c = s[i];
  if (c == '\\' && i + 1 < end) return i + 2;
  if (c == '`') {
    size_t run = 0;
    while (i + run < end && s[i + run] == '`') ++run;
    const size_t close = s.find(std::string(run, '`'), i + run);
    return close == std::string::npos || close >= end ? i + run : close + run;
  }
  if (c == '<' && i + 1 < end && (std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '/') &&
      s.find('>', i) < end) {
    return s.find('>', i) + 1;
  }
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

std::string MarkdownInline::markdown(const std::string& translated_html) const {
  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_BODY;
  const auto destroy = [&options](GumboOutput* o) { gumbo_destroy_output(&options, o); };
  std::unique_ptr<GumboOutput, decltype(destroy)> output(
      gumbo_parse_with_options(&options, translated_html.data(), translated_html.size()), destroy);
  std::string out;
  // (node, leaving it)
  std::vector<std::pair<const GumboNode*, bool>> stack{{output->root, false}};
  const auto number = [](const GumboElement& e, const char* name) -> long {
    const GumboAttribute* a = gumbo_get_attribute(&e.attributes, name);
    return a ? std::atol(a->value) : -1;
  };
  while (!stack.empty()) {
    const auto [node, leaving] = stack.back();
    stack.pop_back();
    if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE) {
      out += node->v.text.text;
      continue;
    }
    if (node->type != GUMBO_NODE_ELEMENT) continue;
    const GumboElement& e = node->v.element;
    const long kept = number(e, "data-a"), link = number(e, "data-m"), emphasis = number(e, "data-d");
    if (kept >= 0 && static_cast<size_t>(kept) < kept_.size()) {
      out += kept_[static_cast<size_t>(kept)];
      continue;
    }
    const bool is_link = link >= 0 && static_cast<size_t>(link) < destinations_.size();
    const bool is_emphasis = emphasis >= 0 && static_cast<size_t>(emphasis) < delimiters_.size();
    if (leaving) {
      if (is_link) out += "]" + destinations_[static_cast<size_t>(link)];
      if (is_emphasis) out += delimiters_[static_cast<size_t>(emphasis)];
      continue;
    }
    if (is_link) out += "[";
    if (is_emphasis) out += delimiters_[static_cast<size_t>(emphasis)];
    stack.push_back({node, true});
    for (unsigned i = e.children.length; i-- > 0;) stack.push_back({static_cast<const GumboNode*>(e.children.data[i]), false});
  }
  return out;
}

}  // namespace nmt::document
