#include "document/translated_fragment.h"

#include <gumbo.h>

#include <cstring>
#include <memory>

#include "util/error.h"

namespace nmt::document {
namespace {

using Marks = std::vector<std::pair<std::string, std::string>>;

class Reader {
 public:
  explicit Reader(std::vector<FragmentPiece>& out) : out_(out) {}

  void walk(const GumboNode* node) {
    // Iterative: (node, marks on entry, whether leaving it).
    struct Frame {
      const GumboNode* node;
      size_t marks;
      bool exit;
    };
    std::vector<Frame> stack{{node, 0, false}};
    while (!stack.empty()) {
      const Frame f = stack.back();
      stack.pop_back();
      const GumboNode* n = f.node;
      if (f.exit) {
        if (n->type == GUMBO_NODE_ELEMENT && !has_data(n) && n->v.element.original_end_tag.length > 0) {
          add_text(std::string(n->v.element.original_end_tag.data, n->v.element.original_end_tag.length));
        }
        marks_.resize(f.marks);
        continue;
      }
      if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE || n->type == GUMBO_NODE_CDATA) {
        add_text(n->v.text.text);
        continue;
      }
      if (n->type != GUMBO_NODE_ELEMENT) continue;
      const GumboElement& e = n->v.element;
      const size_t before = marks_.size();
      const bool data = has_data(n);
      if (data) {
        for (unsigned i = 0; i < e.attributes.length; ++i) {
          const auto* a = static_cast<const GumboAttribute*>(e.attributes.data[i]);
          if (std::strncmp(a->name, "data-", 5) == 0) marks_.emplace_back(a->name, a->value);
        }
        if (e.children.length == 0) {
          FragmentPiece p;
          p.marks = marks_;
          p.empty_element = true;
          out_.push_back(std::move(p));
          marks_.resize(before);
          continue;
        }
      } else if (e.original_tag.length > 0 && n->parent && n->parent->type != GUMBO_NODE_DOCUMENT &&
                 e.tag != GUMBO_TAG_HTML && e.tag != GUMBO_TAG_BODY) {
        add_text(std::string(e.original_tag.data, e.original_tag.length));
      }
      stack.push_back({n, before, true});
      for (unsigned i = e.children.length; i-- > 0;) {
        stack.push_back({static_cast<const GumboNode*>(e.children.data[i]), marks_.size(), false});
      }
    }
  }

 private:
  static bool has_data(const GumboNode* n) {
    const GumboElement& e = n->v.element;
    for (unsigned i = 0; i < e.attributes.length; ++i) {
      if (std::strncmp(static_cast<const GumboAttribute*>(e.attributes.data[i])->name, "data-", 5) == 0) return true;
    }
    return false;
  }

  void add_text(const std::string& text) {
    if (text.empty()) return;
    if (!out_.empty() && !out_.back().empty_element && out_.back().marks == marks_) {
      out_.back().text += text;
      return;
    }
    FragmentPiece p;
    p.text = text;
    p.marks = marks_;
    out_.push_back(std::move(p));
  }

  std::vector<FragmentPiece>& out_;
  Marks marks_;
};

}  // namespace

const std::string* FragmentPiece::mark(const std::string& name) const {
  for (auto it = marks.rbegin(); it != marks.rend(); ++it) {
    if (it->first == name) return &it->second;
  }
  return nullptr;
}

std::vector<FragmentPiece> read_fragment(const std::string& html) {
  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_BODY;
  const auto destroy = [&options](GumboOutput* o) { gumbo_destroy_output(&options, o); };
  std::unique_ptr<GumboOutput, decltype(destroy)> output(gumbo_parse_with_options(&options, html.data(), html.size()),
                                                         destroy);
  if (!output) throw DataError("The HTML parser could not read a translated fragment.");
  std::vector<FragmentPiece> out;
  Reader(out).walk(output->root);
  return out;
}

}  // namespace nmt::document
