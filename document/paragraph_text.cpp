#include "document/paragraph_text.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "document/translated_fragment.h"
#include "text/html_document.h"

namespace nmt::document {
namespace {

std::string leaf_text(const pugi::xml_node& leaf) {
  std::string out;
  for (pugi::xml_node c = leaf.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) out += c.value();
  }
  return out;
}

// Whitespace as OpenDocument reads it: each stretch one space.
std::string collapse(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && !out.empty() && out.back() == ' ') continue;
    out += space ? ' ' : c;
  }
  return out;
}

// A canonical form of an element and what it holds, without what does not
// change how text looks; "" when nothing that does is left (<w:rPr><w:lang/></w:rPr>).
std::string look_of_element(const pugi::xml_node& node, const ParagraphDialect& d) {
  std::vector<std::string> attributes;
  for (pugi::xml_attribute a = node.first_attribute(); a; a = a.next_attribute()) {
    if (!d.is(d.unstyled, a.name())) attributes.push_back(std::string(a.name()) + "=" + a.value());
  }
  std::sort(attributes.begin(), attributes.end());
  std::string inner;
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_element && !d.is(d.unstyled, c.name())) {
      const std::string child = look_of_element(c, d);
      inner += child.empty() ? "<" + std::string(c.name()) + "/>" : child;
    }
  }
  if (attributes.empty() && inner.empty()) return "";
  std::string out = "<" + std::string(node.name());
  for (const auto& a : attributes) out += " " + a;
  return out + ">" + inner + "</>";
}

}  // namespace

bool ParagraphDialect::is(const std::vector<std::string>& names, const char* name) const {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<pugi::xml_node> find_paragraphs(pugi::xml_node root, const ParagraphDialect& dialect) {
  std::vector<pugi::xml_node> out, stack{root};
  while (!stack.empty()) {
    const pugi::xml_node n = stack.back();
    stack.pop_back();
    if (n.type() == pugi::node_element && dialect.is(dialect.paragraphs, n.name())) out.push_back(n);
    std::vector<pugi::xml_node> children;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element || c.type() == pugi::node_document) children.push_back(c);
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

ParagraphText::ParagraphText(pugi::xml_node paragraph, const ParagraphDialect& dialect)
    : paragraph_(paragraph), dialect_(dialect) {
  if (dialect_.paragraph_left_alone && dialect_.paragraph_left_alone(paragraph_)) return;
  std::vector<pugi::xml_node> chain;
  int field_depth = 0;
  gather(paragraph_, chain, field_depth);
  for (const Item& item : items_) {
    if (item.object) continue;
    for (char c : item.text) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') translatable_ = true;
    }
  }
  if (translatable_) build_html();
}

void ParagraphText::gather(pugi::xml_node node, std::vector<pugi::xml_node>& chain, int& field_depth) {
  const ParagraphDialect& d = dialect_;
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    const pugi::xml_node_type type = c.type();
    if (type == pugi::node_pcdata || type == pugi::node_cdata) {
      // With text leaves (w:t), text elsewhere is the file's indentation.
      if (d.text_leaves.empty() && field_depth == 0) add_text(chain, d.collapse_space ? collapse(c.value()) : c.value());
      continue;
    }
    if (type != pugi::node_element) continue;  // comments, processing instructions: dropped with the old runs
    const char* name = c.name();
    if (node == paragraph_ && (d.is(d.kept_first, name) || d.is(d.kept_last, name))) continue;
    if (d.is(d.properties, name) && !chain.empty() && chain.back() == node) continue;
    if (d.is(d.dropped, name)) continue;
    const int change = d.field_change ? d.field_change(c) : 0;
    if (change != 0 || field_depth > 0) {
      field_depth = std::max(0, field_depth + change);
      items_.push_back({chain, "", c, -1});
      continue;
    }
    if (d.is(d.text_leaves, name)) {
      add_text(chain, leaf_text(c));
      continue;
    }
    if (!d.space.empty() && d.space == name) {
      add_text(chain, std::string(static_cast<size_t>(std::clamp(c.attribute(d.space_count.c_str()).as_int(1), 1, 100)), ' '));
      continue;
    }
    if (d.is(d.wrappers, name) && !(d.wrapper_left_alone && d.wrapper_left_alone(c))) {
      chain.push_back(c);
      gather(c, chain, field_depth);
      chain.pop_back();
      continue;
    }
    items_.push_back({chain, "", c, -1});
  }
}

std::string ParagraphText::look_of(const std::vector<pugi::xml_node>& chain) const {
  std::string out;
  for (const pugi::xml_node& n : chain) {
    out += '<';
    out += n.name();
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
      if (!dialect_.is(dialect_.unstyled, a.name())) out += std::string(" ") + a.name() + "=" + a.value();
    }
    out += '>';
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element && dialect_.is(dialect_.properties, c.name())) out += look_of_element(c, dialect_);
    }
  }
  return out;
}

void ParagraphText::add_text(const std::vector<pugi::xml_node>& chain, const std::string& text) {
  if (text.empty()) return;
  const std::string look = look_of(chain);
  int id = static_cast<int>(std::find(looks_.begin(), looks_.end(), look) - looks_.begin());
  if (id == static_cast<int>(looks_.size())) {
    looks_.push_back(look);
    look_chains_.push_back(chain);
  }
  if (!items_.empty() && !items_.back().object && items_.back().look == id) {
    items_.back().text += text;  // runs that look alike are one stretch
    return;
  }
  items_.push_back({chain, text, pugi::xml_node(), id});
}

void ParagraphText::build_html() {
  std::vector<size_t> chars(looks_.size(), 0);
  for (const Item& item : items_) {
    if (!item.object) chars[static_cast<size_t>(item.look)] += item.text.size();
  }
  base_look_ = static_cast<int>(std::max_element(chars.begin(), chars.end()) - chars.begin());
  // What comes before the first words and after the last (a footnote's
  // mark, an image opening the paragraph, spaces) stays there, untranslated.
  const auto has_words = [](const Item& item) {
    return !item.object && item.text.find_first_not_of(" \t\r\n") != std::string::npos;
  };
  head_ = static_cast<size_t>(std::find_if(items_.begin(), items_.end(), has_words) - items_.begin());
  tail_ = static_cast<size_t>(items_.rend() - std::find_if(items_.rbegin(), items_.rend(), has_words));
  html_.clear();
  for (size_t i = head_; i < tail_; ++i) {
    const Item& item = items_[i];
    if (item.object) {
      html_ += "<span data-a=\"" + std::to_string(i) + "\"></span>";
    } else if (item.look == base_look_) {
      html_ += text::escape_html_text(item.text);
    } else {
      html_ += "<span data-k=\"" + std::to_string(item.look) + "\">" + text::escape_html_text(item.text) + "</span>";
    }
  }
}

namespace {

// Writes a paragraph's new content before its trailing kept children:
// copies of the original wrappers (a run with its properties, a link), text
// inside them, and kept nodes moved into them.
class ParagraphWriter {
 public:
  ParagraphWriter(pugi::xml_node paragraph, const ParagraphDialect& dialect) : paragraph_(paragraph), d_(dialect) {
    for (pugi::xml_node c = paragraph_.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_element && d_.is(d_.kept_last, c.name())) {
        anchor_ = c;
        break;
      }
    }
  }

  // The innermost copy of `chain`, reusing the copies still open that it shares a start with.
  pugi::xml_node enter(const std::vector<pugi::xml_node>& chain) {
    size_t common = 0;
    while (common < open_.size() && common < chain.size() && open_[common].first == chain[common]) ++common;
    open_.resize(common);
    for (size_t k = common; k < chain.size(); ++k) {
      const pugi::xml_node original = chain[k];
      pugi::xml_node copy = open_.empty() ? new_child(original.name()) : open_.back().second.append_child(original.name());
      for (pugi::xml_attribute a = original.first_attribute(); a; a = a.next_attribute()) {
        copy.append_attribute(a.name()) = a.value();
      }
      for (pugi::xml_node p = original.first_child(); p; p = p.next_sibling()) {
        if (p.type() == pugi::node_element && d_.is(d_.properties, p.name())) copy.append_copy(p);
      }
      open_.emplace_back(original, copy);
    }
    return open_.empty() ? pugi::xml_node() : open_.back().second;
  }

  void move(const std::vector<pugi::xml_node>& chain, pugi::xml_node node) {
    pugi::xml_node container = enter(chain);
    if (container) {
      container.append_move(node);
    } else {
      anchor_ ? paragraph_.insert_move_before(node, anchor_) : paragraph_.append_move(node);
    }
  }

  void text(const std::vector<pugi::xml_node>& chain, const std::string& text) {
    pugi::xml_node container = enter(chain);
    if (d_.text_leaves.empty()) {  // text nodes where they stand (OpenDocument)
      pugi::xml_node node = container ? container.append_child(pugi::node_pcdata) : new_child(pugi::node_pcdata);
      node.set_value(text.c_str());
      return;
    }
    pugi::xml_node leaf = (container ? container : paragraph_).append_child(d_.text_leaves.front().c_str());
    if (!d_.leaf_space_attribute.empty()) leaf.append_attribute(d_.leaf_space_attribute.c_str()) = "preserve";
    leaf.append_child(pugi::node_pcdata).set_value(text.c_str());
  }

 private:
  template <typename What>
  pugi::xml_node new_child(What what) {
    return anchor_ ? paragraph_.insert_child_before(what, anchor_) : paragraph_.append_child(what);
  }

  pugi::xml_node paragraph_, anchor_;
  const ParagraphDialect& d_;
  std::vector<std::pair<pugi::xml_node, pugi::xml_node>> open_;  // the wrappers open: (original, copy)
};

}  // namespace

void ParagraphText::apply(const std::string& translated_html) {
  if (!translatable_) return;
  std::vector<pugi::xml_node> old;  // what the new content replaces
  for (pugi::xml_node c = paragraph_.first_child(); c; c = c.next_sibling()) {
    const bool kept = c.type() == pugi::node_element &&
                      (dialect_.is(dialect_.kept_first, c.name()) || dialect_.is(dialect_.kept_last, c.name()));
    if (!kept) old.push_back(c);
  }
  ParagraphWriter writer(paragraph_, dialect_);
  std::set<size_t> placed;
  const auto place = [&](size_t i) {
    const Item& item = items_[i];
    if (!item.object) return writer.text(look_chains_[static_cast<size_t>(item.look)], item.text);
    if (placed.insert(i).second) writer.move(item.chain, item.object);
  };
  for (size_t i = 0; i < head_; ++i) place(i);
  for (const FragmentPiece& piece : read_fragment(translated_html)) {
    if (piece.empty_element) {
      const std::string* a = piece.mark("data-a");
      const size_t i = a ? static_cast<size_t>(std::atoll(a->c_str())) : items_.size();
      if (i >= head_ && i < tail_ && items_[i].object) place(i);
      continue;
    }
    const std::string* k = piece.mark("data-k");
    const long look = k ? std::atol(k->c_str()) : base_look_;
    const bool known = look >= 0 && static_cast<size_t>(look) < looks_.size();
    writer.text(look_chains_[known ? static_cast<size_t>(look) : static_cast<size_t>(base_look_)], piece.text);
  }
  // Nothing is lost: an object whose marker did not come back goes after the words.
  for (size_t i = head_; i < tail_; ++i) {
    if (items_[i].object) place(i);
  }
  for (size_t i = tail_; i < items_.size(); ++i) place(i);
  std::set<pugi::xml_node> moved;
  for (const Item& item : items_) {
    if (item.object) moved.insert(item.object);
  }
  for (const pugi::xml_node& n : old) {
    if (!moved.count(n)) paragraph_.remove_child(n);
  }
}

}  // namespace nmt::document
