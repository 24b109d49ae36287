#include "text/html_document.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <unordered_map>

#include "util/error.h"

namespace nmt::text {
namespace {

enum class Kind { kSkip, kInline, kBlock };

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

bool marked_no_translate(const GumboElement& e) {
  const GumboAttribute* a = gumbo_get_attribute(&e.attributes, "translate");
  return a && strcasecmp(a->value, "no") == 0;
}

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
    // Made or moved by the parser while repairing markup: its tags are not where it is.
    constexpr unsigned kRepaired = GUMBO_INSERTION_BY_PARSER | GUMBO_INSERTION_RECONSTRUCTED_FORMATTING_ELEMENT |
                                   GUMBO_INSERTION_ADOPTION_AGENCY_CLONED | GUMBO_INSERTION_ADOPTION_AGENCY_MOVED |
                                   GUMBO_INSERTION_FOSTER_PARENTED | GUMBO_INSERTION_CONVERTED_FROM_END_TAG;
    bool ok = e.tag_namespace == GUMBO_NAMESPACE_HTML && is_inline_tag(e.tag) && e.original_tag.length > 0 &&
              (node->parse_flags & kRepaired) == 0 && !own_end_tag(node, source).empty() && !marked_no_translate(e);
    for (const GumboNode* c : children_of(node)) {
      if (c->type == GUMBO_NODE_TEXT || c->type == GUMBO_NODE_WHITESPACE) continue;
      if (c->type != GUMBO_NODE_ELEMENT || !carried[c]) ok = false;
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

Kind kind_of(const GumboNode* node, const std::unordered_map<const GumboNode*, bool>& carried) {
  const GumboElement& e = node->v.element;
  if (e.tag_namespace != GUMBO_NAMESPACE_HTML || is_skipped_tag(e.tag) || marked_no_translate(e)) return Kind::kSkip;
  const auto it = carried.find(node);
  return it != carried.end() && it->second ? Kind::kInline : Kind::kBlock;
}

constexpr size_t kMaxInlineDepth = 100;  // inline elements inside one another that a run carries


// Gathers runs while walking the tree in document order.
class RunBuilder {
 public:
  RunBuilder(const std::string& source, std::vector<HtmlRun>& runs, std::vector<size_t> markup)
      : source_(source), runs_(runs), markup_(std::move(markup)) {}

  void add_text(const GumboNode* node) {
    const GumboText& t = node->v.text;
    const Span at{offset_in(source_, t.original_text.data), offset_in(source_, t.original_text.data) + t.original_text.length};
    const auto tag = std::upper_bound(markup_.begin(), markup_.end(), at.begin);
    if ((tag != markup_.end() && *tag < at.end) || (!in_title(node) && holds_a_tag(at.of(source_)))) {
      broken_ = true;  // gathered across markup by the parser: left as it is, the run's other text in place
      return;
    }
    place(at.begin);
    const size_t from = run_.text.size();
    run_.text += t.text;
    pieces_.push_back({at, {from, run_.text.size()}});
    extend(at.end);
  }

  void open_inline(const GumboNode* node) {
    const GumboElement& e = node->v.element;
    InlineElement el;
    el.open = {offset_in(source_, e.original_tag.data), offset_in(source_, e.original_tag.data) + e.original_tag.length};
    el.name = gumbo_normalized_tagname(e.tag);
    el.close = own_end_tag(node, source_);
    el.begin = run_.text.size();
    el.parent = open_.empty() ? -1 : open_.back();
    if (open_.size() >= kMaxInlineDepth) broken_ = true;  // deeper than text needs: text nodes in place
    place(el.open.begin);
    extend(el.open.end);
    open_.push_back(static_cast<int>(run_.elements.size()));
    run_.elements.push_back(el);
  }

  void close_inline() {
    if (open_.empty()) return;  // not reached: a carried element holds no flush
    InlineElement& el = run_.elements[static_cast<size_t>(open_.back())];
    open_.pop_back();
    el.end = run_.text.size();
    if (!el.close.empty()) {
      if (el.close.begin < run_.source.end || markup_between(run_.source.end, el.close.begin)) broken_ = true;
      extend(el.close.end);
    }
  }

  void add_attributes(const GumboElement& e) {
    for (const char* name : {"title", "alt", "placeholder"}) {
      const GumboAttribute* a = gumbo_get_attribute(&e.attributes, name);
      if (!a || a->original_value.length == 0 || trim_space(a->value, {0, std::strlen(a->value)}).empty()) continue;
      HtmlRun r;
      r.attribute = true;
      const size_t begin = offset_in(source_, a->original_value.data), n = a->original_value.length;
      const char q = a->original_value.data[0];
      r.quoted = n >= 2 && (q == '"' || q == '\'') && a->original_value.data[n - 1] == q;
      r.source = r.quoted ? Span{begin + 1, begin + n - 1} : Span{begin, begin + n};
      r.text = a->value;
      runs_.push_back(std::move(r));
    }
  }

  void flush() {
    if (!run_.text.empty() || !run_.elements.empty()) finish();
    run_ = HtmlRun();
    pieces_.clear();
    open_.clear();
    broken_ = false;
  }

 private:
  struct Piece {
    Span source, text;
  };

  // Starts the run at `at`, or notes that the source runs backwards (the
  // parser moved something): such a run is translated a text node at a time.
  void place(size_t at) {
    if (run_.text.empty() && run_.elements.empty()) {
      run_.source = {at, at};
    } else if (at < run_.source.end || markup_between(run_.source.end, at)) {
      broken_ = true;  // also when the parser moved text here past tags that are not the run's
    }
  }
  bool markup_between(size_t from, size_t to) const {
    const auto tag = std::lower_bound(markup_.begin(), markup_.end(), from);
    return tag != markup_.end() && *tag < to;
  }
  void extend(size_t to) { run_.source.end = std::max(run_.source.end, to); }
  bool overlaps_emitted(Span s) const {
    auto next = emitted_.lower_bound(s.begin);
    if (next != emitted_.end() && next->first < s.end) return true;
    return next != emitted_.begin() && std::prev(next)->second > s.begin;
  }

  void finish() {
    if (trim_space(run_.text, {0, run_.text.size()}).empty()) return;
    if (overlaps_emitted(run_.source)) broken_ = true;  // the parser moved text in among an earlier run's
    if (broken_ || !open_.empty()) {
      for (const Piece& p : pieces_) {
        if (trim_space(run_.text, p.text).empty() || overlaps_emitted(p.source)) continue;  // left as it is
        emitted_[p.source.begin] = p.source.end;
        HtmlRun r;
        r.source = p.source;
        r.text = std::string(p.text.of(run_.text));
        runs_.push_back(std::move(r));
      }
      return;
    }
    peel_wrappers();
    emitted_[run_.source.begin] = run_.source.end;
    runs_.push_back(std::move(run_));
  }

  // An element wrapping the whole run (<p><span>...</span></p>) stays where
  // it is, so that its sentences are translated apart.
  void peel_wrappers() {
    for (;;) {
      const Span inner = trim_space(run_.text, {0, run_.text.size()});
      if (run_.elements.empty()) return;
      const InlineElement& e = run_.elements.front();
      const bool only_top = std::none_of(run_.elements.begin() + 1, run_.elements.end(),
                                         [](const InlineElement& x) { return x.parent < 0; });
      if (!only_top || e.close.empty() || e.begin > inner.begin || e.end < inner.end) return;
      const size_t cut = e.begin;
      run_.text = run_.text.substr(e.begin, e.end - e.begin);
      run_.source = {e.open.end, e.close.begin};
      run_.elements.erase(run_.elements.begin());
      for (auto& x : run_.elements) {
        x.begin -= cut;
        x.end -= cut;
        x.parent = x.parent <= 0 ? -1 : x.parent - 1;
      }
    }
  }

  const std::string& source_;
  std::vector<HtmlRun>& runs_;
  const std::vector<size_t> markup_;  // where tags and comments start
  HtmlRun run_;
  std::vector<Piece> pieces_;
  std::vector<int> open_;
  bool broken_ = false;
  std::map<size_t, size_t> emitted_;  // the text runs' source spans, begin -> end
};

void walk(const GumboNode* root, const std::string& source, std::vector<HtmlRun>& runs) {
  const auto carried = carried_inline_elements(root, source);
  RunBuilder builder(source, runs, markup_starts(root, source));
  struct Frame {
    const GumboNode* node;
    bool exit;
    Kind kind;
  };
  std::vector<Frame> stack{{root, false, Kind::kBlock}};
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    if (f.exit) {
      if (f.kind == Kind::kInline) builder.close_inline(); else builder.flush();
      continue;
    }
    const GumboNode* n = f.node;
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE) {
      builder.add_text(n);
      continue;
    }
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE && n->type != GUMBO_NODE_DOCUMENT) {
      builder.flush();  // a comment or CDATA: left where it is, between runs
      continue;
    }
    const Kind kind = n->type == GUMBO_NODE_ELEMENT ? kind_of(n, carried) : Kind::kBlock;
    if (kind == Kind::kSkip) {
      builder.flush();
      continue;
    }
    if (kind == Kind::kInline) {
      builder.open_inline(n);
    } else {
      builder.flush();
    }
    if (n->type == GUMBO_NODE_ELEMENT) builder.add_attributes(n->v.element);
    stack.push_back({n, true, kind});
    const auto children = children_of(n);
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, false, Kind::kBlock});
  }
  builder.flush();
}

bool starts_a_document(const std::string& html) {
  size_t i = html.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (i < html.size() && std::isspace(static_cast<unsigned char>(html[i]))) ++i;
  for (const char* start : {"<!doctype", "<html"}) {
    const size_t n = std::strlen(start);
    if (html.size() - i >= n && strncasecmp(html.data() + i, start, n) == 0) return true;
  }
  return false;
}

}  // namespace

std::string escape_markup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0') out += "&nbsp;", ++i;
    else out += c;
  }
  return out;
}

HtmlDocument::HtmlDocument(std::string html) : source_(std::move(html)) {
  GumboOptions options = kGumboDefaultOptions;
  const bool document = starts_a_document(source_);
  if (!document) options.fragment_context = GUMBO_TAG_BODY;
  const auto destroy = [&options](GumboOutput* o) { gumbo_destroy_output(&options, o); };
  std::unique_ptr<GumboOutput, decltype(destroy)> output(
      gumbo_parse_with_options(&options, source_.data(), source_.size()), destroy);
  if (!output) throw DataError("The HTML parser could not read the input.");
  walk(document ? output->document : output->root, source_, runs_);
  std::stable_sort(runs_.begin(), runs_.end(),
                   [](const HtmlRun& a, const HtmlRun& b) { return a.source.begin < b.source.begin; });
}

void HtmlDocument::append_run_output(std::string& out, size_t run, const std::vector<std::string>& outputs) const {
  const HtmlRun& r = runs_[run];
  if (!r.attribute) {
    out += outputs[run];
  } else if (r.quoted) {
    out += escape_markup(outputs[run]);
  } else {
    out += "\"" + escape_markup(outputs[run]) + "\"";
  }
}

std::string HtmlDocument::with_attributes(Span span, const std::vector<std::string>& outputs) const {
  std::string out;
  size_t at = span.begin;
  for (size_t k = 0; k < runs_.size(); ++k) {
    const Span s = runs_[k].source;
    if (!runs_[k].attribute || s.begin < at || s.end > span.end) continue;
    out += source_.substr(at, s.begin - at);
    append_run_output(out, k, outputs);
    at = s.end;
  }
  return out + source_.substr(at, span.end - at);
}

std::string HtmlDocument::render(const std::vector<std::string>& outputs) const {
  if (outputs.size() != runs_.size()) throw std::logic_error("HtmlDocument::render: one output per run is needed.");
  std::string out;
  out.reserve(source_.size() + source_.size() / 4);
  size_t at = 0;
  for (size_t k = 0; k < runs_.size(); ++k) {
    const Span s = runs_[k].source;
    if (s.begin < at) continue;  // an attribute of a tag inside a text run: that run's output carries it
    out += source_.substr(at, s.begin - at);
    append_run_output(out, k, outputs);
    at = s.end;
  }
  return out + source_.substr(at);
}

}  // namespace nmt::text
