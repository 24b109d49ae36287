#include "text/html_nodes.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace nmt::text::html_nodes {
namespace {

bool is_inline_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_A: case GUMBO_TAG_ABBR: case GUMBO_TAG_B: case GUMBO_TAG_BDI: case GUMBO_TAG_BDO:
    case GUMBO_TAG_BIG: case GUMBO_TAG_CITE: case GUMBO_TAG_DATA: case GUMBO_TAG_DEL: case GUMBO_TAG_DFN:
    case GUMBO_TAG_EM: case GUMBO_TAG_FONT: case GUMBO_TAG_I: case GUMBO_TAG_INS: case GUMBO_TAG_LABEL:
    case GUMBO_TAG_MARK: case GUMBO_TAG_Q: case GUMBO_TAG_S: case GUMBO_TAG_SMALL: case GUMBO_TAG_SPAN:
    case GUMBO_TAG_STRIKE: case GUMBO_TAG_STRONG: case GUMBO_TAG_SUB: case GUMBO_TAG_SUP: case GUMBO_TAG_TIME:
    case GUMBO_TAG_TT: case GUMBO_TAG_U:
      return true;
    default:
      return false;
  }
}

// Elements whose content is code, raw text or not for translation.
bool is_skipped_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_PRE: case GUMBO_TAG_CODE: case GUMBO_TAG_KBD:
    case GUMBO_TAG_SAMP: case GUMBO_TAG_VAR: case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_XMP: case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
      return true;
    default:
      return false;
  }
}

// translate="no", or the class notranslate (Google's and the browsers' convention).
bool marked_no_translate(const GumboElement& e) {
  const GumboAttribute* a = gumbo_get_attribute(&e.attributes, "translate");
  if (a && strcasecmp(a->value, "no") == 0) return true;
  const GumboAttribute* c = gumbo_get_attribute(&e.attributes, "class");
  if (!c) return false;
  const std::string classes = std::string(" ") + c->value + " ";
  std::string normal = classes;
  for (char& ch : normal) ch = std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
  return normal.find(" notranslate ") != std::string::npos;
}

// Made or moved by the parser while repairing markup: its tags are not where it is.
constexpr unsigned kRepaired = GUMBO_INSERTION_BY_PARSER | GUMBO_INSERTION_RECONSTRUCTED_FORMATTING_ELEMENT |
                               GUMBO_INSERTION_ADOPTION_AGENCY_CLONED | GUMBO_INSERTION_ADOPTION_AGENCY_MOVED |
                               GUMBO_INSERTION_FOSTER_PARENTED | GUMBO_INSERTION_CONVERTED_FROM_END_TAG;

bool is_inline_code_tag(GumboTag tag) {
  return tag == GUMBO_TAG_CODE || tag == GUMBO_TAG_KBD || tag == GUMBO_TAG_SAMP || tag == GUMBO_TAG_VAR;
}

}  // namespace

std::vector<const GumboNode*> children_of(const GumboNode* node) {
  std::vector<const GumboNode*> out;
  if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE && node->type != GUMBO_NODE_DOCUMENT)
    return out;
  const GumboVector& v = node->type == GUMBO_NODE_DOCUMENT ? node->v.document.children : node->v.element.children;
  for (unsigned i = 0; i < v.length; ++i) out.push_back(static_cast<const GumboNode*>(v.data[i]));
  return out;
}

// The element's own end tag in the source; empty where it has none, or where
// another end tag closed it (a <b> left open until </p> points at that one).
Span own_end_tag(const GumboNode* node, const std::string& source) {
  const GumboElement& e = node->v.element;
  if ((node->parse_flags & GUMBO_INSERTION_IMPLICIT_END_TAG) != 0 || e.original_end_tag.length == 0) return {};
  const std::string name = gumbo_normalized_tagname(e.tag);
  const std::string_view end_tag(e.original_end_tag.data, e.original_end_tag.length);
  const size_t n = name.size() + 2;  // "</" and the name
  if (end_tag.size() <= n || strncasecmp(end_tag.data(), ("</" + name).c_str(), n) != 0) return {};
  const char after = end_tag[n];
  if (after != '>' && after != '/' && !std::isspace(static_cast<unsigned char>(after))) return {};
  const size_t at = static_cast<size_t>(e.original_end_tag.data - source.data());
  return {at, at + end_tag.size()};
}

// Inline elements that a run can carry: an inline tag spelled in the source
// with its own end tag (not one the parser made up or moved while repairing:
// moving the text of an unclosed element changes what the parser reopens
// after it) holding only text and such elements. Others are containers:
// their text makes runs of its own.
std::unordered_map<const GumboNode*, bool> carried_inline_elements(const GumboNode* root, const std::string& source) {
  std::unordered_map<const GumboNode*, bool> carried;
  std::vector<std::pair<const GumboNode*, bool>> stack{{root, false}};  // (node, children done)
  while (!stack.empty()) {
    auto [node, done] = stack.back();
    stack.pop_back();
    if (node->type != GUMBO_NODE_ELEMENT) continue;
    const GumboElement& e = node->v.element;
    if (!done) {
      stack.push_back({node, true});
      for (const GumboNode* c : children_of(node)) stack.push_back({c, false});
      continue;
    }
    bool ok = e.tag_namespace == GUMBO_NAMESPACE_HTML && is_inline_tag(e.tag) && e.original_tag.length > 0 &&
              (node->parse_flags & kRepaired) == 0 && !own_end_tag(node, source).empty() && !marked_no_translate(e);
    for (const GumboNode* c : children_of(node)) {
      if (c->type == GUMBO_NODE_TEXT || c->type == GUMBO_NODE_WHITESPACE) continue;
      if (c->type != GUMBO_NODE_ELEMENT || !(carried[c] || kept_inline(c, source))) ok = false;
    }
    carried[node] = ok;
  }
  return carried;
}

size_t offset_in(const std::string& source, const char* p) { return static_cast<size_t>(p - source.data()); }

// Whether source text holds what can only be a tag ("<" and a letter, "/",
// "!" or "?"): the parser joined text around a tag that left no node of its
// own (a second <html> lends its attributes to the first). Only RCDATA such as
// <title> keeps such text as text.
bool holds_a_tag(std::string_view original) {
  for (size_t i = original.find('<'); i != std::string_view::npos && i + 1 < original.size();
       i = original.find('<', i + 1)) {
    const char c = original[i + 1];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '/' || c == '!' || c == '?') return true;
  }
  return false;
}

bool in_title(const GumboNode* text) {
  return text->parent && text->parent->type == GUMBO_NODE_ELEMENT && text->parent->v.element.tag == GUMBO_TAG_TITLE;
}

// Where every tag and comment starts in the source, sorted: a text node whose
// source span holds one is text the parser gathered from several places
// (foster parenting moves text out of a table and joins it to the text
// before), and is left as it is.
std::vector<size_t> markup_starts(const GumboNode* root, const std::string& source) {
  std::vector<size_t> starts;
  std::vector<const GumboNode*> stack{root};
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n->type == GUMBO_NODE_COMMENT || n->type == GUMBO_NODE_CDATA) {
      if (n->v.text.original_text.length > 0) starts.push_back(offset_in(source, n->v.text.original_text.data));
      continue;
    }
    if (n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE) {
      const GumboElement& e = n->v.element;
      if (e.original_tag.length > 0) starts.push_back(offset_in(source, e.original_tag.data));
      if (e.original_end_tag.length > 0) starts.push_back(offset_in(source, e.original_end_tag.data));
    }
    for (const GumboNode* c : children_of(n)) stack.push_back(c);
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

bool kept_inline(const GumboNode* node, const std::string& source) {
  if (node->type != GUMBO_NODE_ELEMENT) return false;
  const GumboElement& e = node->v.element;
  return e.tag_namespace == GUMBO_NAMESPACE_HTML &&
         (is_inline_code_tag(e.tag) || (is_inline_tag(e.tag) && marked_no_translate(e))) && e.original_tag.length > 0 &&
         (node->parse_flags & kRepaired) == 0 && !own_end_tag(node, source).empty();
}

Kind kind_of(const GumboNode* node, const std::unordered_map<const GumboNode*, bool>& carried) {
  const GumboElement& e = node->v.element;
  if (e.tag_namespace != GUMBO_NAMESPACE_HTML || is_skipped_tag(e.tag) || marked_no_translate(e)) return Kind::kSkip;
  const auto it = carried.find(node);
  return it != carried.end() && it->second ? Kind::kInline : Kind::kBlock;
}

}  // namespace nmt::text::html_nodes
