// Shared by the HTML tests: snippets shaped like real pages, and an HTML
// document's element tree as a string (gumbo, as the product parses), with
// the text that must not change (script, style, code, comments ...) and
// without the text and attributes that translation may change.
#pragma once

#include <gumbo.h>

#include <cstring>
#include <string>
#include <vector>

namespace nmt::test {

inline const std::vector<std::string>& html_snippets() {
  static const std::vector<std::string> snippets = {
      "Ein Mann sieht einen Hund.",
      "<p>Ein Mann sieht einen Hund. Eine Frau liest ein Buch.</p>",
      "<p>Ein <b>Mann</b> sieht einen <i>Hund</i>.</p>",
      "<p>Ein <b>großer <i>Hund</i></b> spielt im Park.</p>",
      "<p>Lies <a href=\"https://example.org/a?x=1&amp;y=2\" title=\"Ein Hund\">den Artikel</a> heute.</p>",
      "<ul>\n  <li>Ein Hund.</li>\n  <li>Eine <em>Katze</em>.</li>\n</ul>",
      "<ol><li>Erstens<li>Zweitens</ol>",
      "<table><tr><th>Name</th><td>Ein Mann</td></tr><tr><td colspan=2>Ein Kind spielt.</td></tr></table>",
      "<p>Fisch &amp; Chips &lt;heute&gt; f&uuml;r&nbsp;alle &#169; 2026</p>",
      "<p>Text <!-- ein Kommentar --> mehr Text.</p>",
      "<script>var a = \"Ein Hund\"; if (a < b) {}</script><p>Ein Hund.</p>",
      "<style>p { color: red; }</style><p>Eine Frau.</p>",
      "<p>Ein Bild <img src=\"a.png\" alt=\"Ein Hund im Park\"> und ein Umbruch<br>hier.</p>",
      "<input type=\"text\" placeholder=\"Ihr Name\" value=\"Ein Mann\">",
      "<pre>  Ein Mann\n  sieht  einen Hund.</pre><p>Ein Hund.</p>",
      "<p>Befehl <code>ls -l</code> zeigt Dateien.</p>",
      "<p translate=\"no\">Ein Mann sieht einen Hund.</p><p>Ein Hund.</p>",
      "<p>Ein <span translate=\"no\">Markenname</span> ist hier.</p>",
      "<div><div><div><p>Tief <strong>verschachtelt</strong>.</p></div></div></div>",
      "<h1>Ein Titel</h1><h2>Ein Untertitel</h2><p>Ein Absatz.</p>",
      "<!DOCTYPE html><html><head><title>Ein Hund</title></head><body><p>Ein Mann.</p></body></html>",
      "<p>Ein <b>Mann</b> sieht. Eine <b>Frau</b> liest.</p>",
      "<p><b>Ein Mann sieht. Eine Frau liest.</b></p>",
      "<p>Ein <b>Mann sieht. Eine Frau</b> liest.</p>",
      "<p>Ein <a href=x></a>leerer Anker.</p>",
      "<p>Unclosed <b>fett <i>kursiv</p><p>danach</p>",
      "<p>Ein Hund<p>Eine Katze",
      "<b>fett <i>beide</b> kursiv</i> Ende",
      "<p>Ein <b>g<p>Ein <roßer <b",  // the parser reopens <b> in the second paragraph (found by fuzzing)
      "<table><tr><td>Zelle</td>Streutext</tr></table>",
      "<svg><text x=\"0\">Ein Hund</text></svg><p>Ein Hund.</p>",
      "<p>Ein <sup>1</sup> und <sub>2</sub> und <small>klein</small>.</p>",
      "<dl><dt>Hund</dt><dd>Ein Tier.</dd></dl>",
      "<p>  Leerzeichen   bleiben  </p>\n\n<p>\tTab</p>",
      "<blockquote><p>Ein <q>Zitat</q> hier.</p></blockquote>",
      "<label for=n>Name</label> <button title=\"Senden\">Senden</button>",
      "",
      "   ",
  };
  return snippets;
}

namespace detail {
inline void tree_of(const GumboNode* n, std::string& out, bool keep_text) {
  switch (n->type) {
    case GUMBO_NODE_TEXT:
    case GUMBO_NODE_WHITESPACE:
    case GUMBO_NODE_CDATA:
      if (keep_text) out += "[" + std::string(n->v.text.text) + "]";
      return;
    case GUMBO_NODE_COMMENT:
      out += "<!--" + std::string(n->v.text.text) + "-->";
      return;
    default:
      break;
  }
  const bool element = n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE;
  const GumboVector& children = element ? n->v.element.children : n->v.document.children;
  if (element) {
    const GumboElement& e = n->v.element;
    out += "<" + std::string(gumbo_normalized_tagname(e.tag));
    if (e.tag == GUMBO_TAG_UNKNOWN) {  // its name as written, without the attributes
      GumboStringPiece name = e.original_tag;
      gumbo_tag_from_original_text(&name);
      out += ":" + std::string(name.data, name.length);
    }
    for (unsigned i = 0; i < e.attributes.length; ++i) {
      const auto* a = static_cast<const GumboAttribute*>(e.attributes.data[i]);
      const bool translatable = !std::strcmp(a->name, "title") || !std::strcmp(a->name, "alt") ||
                                !std::strcmp(a->name, "placeholder");
      out += " " + std::string(a->name) + (translatable ? "" : "=" + std::string(a->value));
    }
    out += ">";
    const GumboAttribute* no = gumbo_get_attribute(&e.attributes, "translate");
    const bool fixed = e.tag == GUMBO_TAG_SCRIPT || e.tag == GUMBO_TAG_STYLE || e.tag == GUMBO_TAG_PRE ||
                       e.tag == GUMBO_TAG_CODE || e.tag_namespace != GUMBO_NAMESPACE_HTML ||
                       (no && !std::strcmp(no->value, "no"));
    keep_text = keep_text || fixed;
  }
  for (unsigned i = 0; i < children.length; ++i) tree_of(static_cast<const GumboNode*>(children.data[i]), out, keep_text);
  if (element) out += "</>";
}
}  // namespace detail

// The element tree of `html` parsed as the product parses it (a fragment
// unless it starts with a doctype or <html>).
inline std::string element_tree(const std::string& html) {
  GumboOptions options = kGumboDefaultOptions;
  std::string start = html.substr(0, 20);
  for (auto& c : start) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool document = start.rfind("<!doctype", 0) == 0 || start.rfind("<html", 0) == 0;
  if (!document) options.fragment_context = GUMBO_TAG_BODY;
  GumboOutput* output = gumbo_parse_with_options(&options, html.data(), html.size());
  std::string out;
  detail::tree_of(document ? output->document : output->root, out, false);
  gumbo_destroy_output(&options, output);
  return out;
}

}  // namespace nmt::test
