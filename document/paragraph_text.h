// A paragraph of an XML document (WordprocessingML, DrawingML, OpenDocument)
// as one HTML fragment to translate, and rebuilt from its translation.
//
// The unit is the paragraph, never the run: its runs are joined into one
// text, and runs that look alike (the same properties once revision ids and
// spell-check marks are set aside: Word's spell-checker splits runs that
// look alike) are one stretch, so a paragraph in forty runs translates as
// the same paragraph in one. Each stretch that looks unlike the paragraph's
// most common look becomes a <span data-k="K">; everything the paragraph
// holds that is not text to translate (images, tabs, breaks, fields, notes,
// text boxes, bookmarks, hidden or code-styled runs) becomes an empty
// <span data-a="N"> at its place. The HTML translator carries both to the
// aligned target words (decode/html_translation.h); the paragraph is then
// rebuilt: a copy of the original run (or span, link) around each stretch
// of translated text, and the kept objects moved, never copied, to where
// their markers landed. Paragraphs nested inside kept objects (a text box,
// a note) are paragraphs of their own.
#pragma once

#include <pugixml.hpp>

#include <functional>
#include <string>
#include <vector>

namespace nmt::document {

// How one XML vocabulary writes a paragraph's text.
struct ParagraphDialect {
  std::vector<std::string> paragraphs;   // elements holding a paragraph
  std::vector<std::string> wrappers;     // elements whose content continues the text: runs, spans, links
  std::vector<std::string> text_leaves;  // elements holding a run's text (w:t); empty: text nodes anywhere
  std::string leaf_space_attribute;      // set to "preserve" on each new leaf (xml:space), or ""
  std::vector<std::string> properties;   // a wrapper's children copied with it (w:rPr)
  std::vector<std::string> kept_first;   // paragraph children left first (w:pPr)
  std::vector<std::string> kept_last;    // paragraph children left last (a:endParaRPr)
  std::vector<std::string> dropped;      // marks that mean nothing once the text changes (w:proofErr)
  std::vector<std::string> unstyled;     // attributes and elements that do not change how text looks (w:lang)
  std::string space, space_count;        // an element standing for spaces (text:s) and its count attribute
  bool collapse_space = false;           // whitespace in text nodes is one space (OpenDocument)
  // A wrapper whose text is not translated (hidden, code-styled); a paragraph left as it is (code blocks).
  std::function<bool(const pugi::xml_node&)> wrapper_left_alone, paragraph_left_alone;
  // +1 where a wrapper opens a field, -1 where it closes one, else 0 (Word's complex fields).
  std::function<int(const pugi::xml_node&)> field_change;

  bool is(const std::vector<std::string>& names, const char* name) const;
};

class ParagraphText {
 public:
  ParagraphText(pugi::xml_node paragraph, const ParagraphDialect& dialect);

  // Whether it holds text to translate (not only spaces and kept objects).
  bool translatable() const { return translatable_; }
  // The fragment to translate.
  const std::string& html() const { return html_; }
  // Rebuilds the paragraph from the fragment's translation.
  void apply(const std::string& translated_html);

 private:
  struct Item {
    std::vector<pugi::xml_node> chain;  // the wrappers around it, outermost first
    std::string text;                   // a stretch of text; empty for a kept object
    pugi::xml_node object;              // a kept object
    int look = -1;                      // index into looks_ for text
  };
  void gather(pugi::xml_node node, std::vector<pugi::xml_node>& chain, int& field_depth);
  void add_text(const std::vector<pugi::xml_node>& chain, const std::string& text);
  std::string look_of(const std::vector<pugi::xml_node>& chain) const;
  void build_html();

  pugi::xml_node paragraph_;
  const ParagraphDialect& dialect_;
  std::vector<Item> items_;
  std::vector<std::string> looks_;              // distinct looks, in order of first use
  std::vector<std::vector<pugi::xml_node>> look_chains_;  // the wrappers copied for each look
  int base_look_ = 0;
  size_t head_ = 0, tail_ = 0;  // items_[head_, tail_) are translated; those around them stay as they are
  bool translatable_ = false;
  std::string html_;
};

// Every paragraph element under `root`, in document order (an enclosing one before those nested in it).
std::vector<pugi::xml_node> find_paragraphs(pugi::xml_node root, const ParagraphDialect& dialect);

}  // namespace nmt::document
