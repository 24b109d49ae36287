#include "text/html_document.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <unordered_map>

#include "text/html_nodes.h"
#include "util/error.h"

namespace nmt::text {
namespace {

using namespace html_nodes;

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

  // An element kept as it is inside the run (html_nodes::kept_inline): no
  // text of the run's, its whole source as `open`.
  void add_atom(const GumboNode* node) {
    const GumboElement& e = node->v.element;
    InlineElement el;
    el.open = {offset_in(source_, e.original_tag.data), own_end_tag(node, source_).end};
    el.name = gumbo_normalized_tagname(e.tag);
    el.begin = el.end = run_.text.size();
    el.parent = open_.empty() ? -1 : open_.back();
    el.atom = true;
    place(el.open.begin);
    extend(el.open.end);
    run_.elements.push_back(el);
  }

  void close_inline() {
    if (open_.empty()) return;  // not reached: a carried element holds no flush
    InlineElement& el = run_.elements[static_cast<size_t>(open_.back())];
    open_.pop_back();
    el.end = run_.text.size();
    if (!el.close.empty()) {
      if (el.close.begin != run_.source.end) broken_ = true;  // see place()
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

  // Starts the run at `at`, or notes that its parts are not one stretch of
  // the source: a run's text and inline tags follow each other byte for
  // byte, so anything between them (text the parser moved, a tag it dropped
  // or merged, such as a second <html>) means it is translated a text node
  // at a time.
  void place(size_t at) {
    if (run_.text.empty() && run_.elements.empty()) {
      run_.source = {at, at};
    } else if (at != run_.source.end) {
      broken_ = true;
    }
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
      if (kept_inline(n, source)) {
        builder.add_atom(n);  // inline code, translate="no": a piece of the sentence kept as it is
      } else {
        builder.flush();
      }
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
