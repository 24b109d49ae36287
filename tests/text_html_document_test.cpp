// The HTML document's runs: what is text to translate and what is left
// alone, and a rebuild that changes nothing but the runs.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/html_test_util.h"
#include "text/html_document.h"

namespace nmt::text {
namespace {

std::vector<std::string> texts_of(const HtmlDocument& d) {
  std::vector<std::string> out;
  for (const auto& r : d.runs()) out.push_back((r.attribute ? "@" : "") + r.text);
  return out;
}

// Every run given its own source bytes back (attribute values unescaped)
// rebuilds the input byte for byte.
TEST(HtmlDocument, RunsReplacedByThemselvesGiveTheInputBack) {
  for (const auto& html : test::html_snippets()) {
    const HtmlDocument d(html);
    std::vector<std::string> same;
    for (const auto& r : d.runs()) same.push_back(r.attribute ? r.text : html.substr(r.source.begin, r.source.size()));
    // Attribute values come back unescaped, so compare trees where a value had entities.
    EXPECT_EQ(test::element_tree(d.render(same)), test::element_tree(html)) << html;
    if (html.find("&amp;") == std::string::npos) {
      EXPECT_EQ(d.render(same), html);
    }
  }
}

TEST(HtmlDocument, TextOfBlocksAndAttributesButNotCodeScriptsOrNoTranslate) {
  EXPECT_EQ(texts_of(HtmlDocument("<p>Ein <b>Mann</b> sieht.</p><script>x = 1;</script><pre>keep</pre>"
                                  "<p translate=\"no\">nein</p><img alt=\"Ein Bild\"><code>c</code>")),
            (std::vector<std::string>{"Ein Mann sieht.", "@Ein Bild"}));
  EXPECT_EQ(texts_of(HtmlDocument("<ul><li>Eins</li><li>Zwei <em>drei</em></li></ul>")),
            (std::vector<std::string>{"Eins", "Zwei drei"}));
  EXPECT_EQ(texts_of(HtmlDocument("<p>Fisch &amp; Chips&nbsp;!</p>")),
            (std::vector<std::string>{"Fisch & Chips\xC2\xA0!"}));
  EXPECT_TRUE(HtmlDocument("").runs().empty());
  EXPECT_TRUE(HtmlDocument("<p>  </p><!-- only a comment -->").runs().empty());
}

TEST(HtmlDocument, InlineElementsKeepTheirTagsAndTheTextTheyCover) {
  const std::string html = "<p>Lies <a href=\"x\" title=\"T\">den <b>Artikel</b></a> heute.</p>";
  const HtmlDocument d(html);
  ASSERT_EQ(d.runs().size(), 2u);  // the text, and the title attribute inside it
  const HtmlRun& run = d.runs()[0];
  EXPECT_EQ(run.text, "Lies den Artikel heute.");
  ASSERT_EQ(run.elements.size(), 2u);
  EXPECT_EQ(html.substr(run.elements[0].open.begin, run.elements[0].open.size()), "<a href=\"x\" title=\"T\">");
  EXPECT_EQ(html.substr(run.elements[0].close.begin, run.elements[0].close.size()), "</a>");
  EXPECT_EQ(run.text.substr(run.elements[0].begin, run.elements[0].end - run.elements[0].begin), "den Artikel");
  EXPECT_EQ(run.elements[1].name, "b");
  EXPECT_EQ(run.elements[1].parent, 0);
  EXPECT_EQ(d.with_attributes(run.elements[0].open, {"", "Titel \"neu\""}), "<a href=\"x\" title=\"Titel &quot;neu&quot;\">");
}

TEST(HtmlDocument, InlineCodeAndNoTranslateSpansStayInTheirSentenceAsKeptPieces) {
  const std::string html =
      "<p>Rufe <code>run()</code> auf, dann <span translate=\"no\">Acme</span> und <b>die <kbd class=k>Taste</kbd></b>"
      " und <i class=\"a notranslate\">Nein</i>.</p><div class=\"notranslate\">Block</div>";
  const HtmlDocument d(html);
  ASSERT_EQ(d.runs().size(), 1u);  // the div marked notranslate is left alone
  const HtmlRun& run = d.runs()[0];
  EXPECT_EQ(run.text, "Rufe  auf, dann  und die  und .");
  std::vector<std::string> kept;
  for (const auto& e : run.elements) {
    if (!e.atom) continue;
    EXPECT_EQ(e.begin, e.end);
    EXPECT_TRUE(e.close.empty());
    kept.push_back(html.substr(e.open.begin, e.open.size()));
  }
  EXPECT_EQ(kept, (std::vector<std::string>{"<code>run()</code>", "<span translate=\"no\">Acme</span>",
                                            "<kbd class=k>Taste</kbd>", "<i class=\"a notranslate\">Nein</i>"}));
  const auto kbd = std::find_if(run.elements.begin(), run.elements.end(), [](const InlineElement& e) { return e.name == "kbd"; });
  ASSERT_NE(kbd, run.elements.end());
  EXPECT_EQ(run.elements[static_cast<size_t>(kbd->parent)].name, "b");
  // The run given its own bytes back rebuilds the input.
  EXPECT_EQ(d.render({html.substr(run.source.begin, run.source.size())}), html);
}

TEST(HtmlDocument, AWrapperAroundAWholeBlockStaysOutsideTheRun) {
  const HtmlDocument d("<p><span class=c>Eins. Zwei.</span></p>");
  ASSERT_EQ(d.runs().size(), 1u);
  EXPECT_TRUE(d.runs()[0].elements.empty());
  EXPECT_EQ(d.render({"One. Two."}), "<p><span class=c>One. Two.</span></p>");
}

TEST(HtmlDocument, MisnestedMarkupFallsBackToTextNodesInPlace) {
  const std::string html = "<b>fett <i>beide</b> kursiv</i> Ende";
  const HtmlDocument d(html);
  const std::vector<std::string> upper(d.runs().size(), "X");
  EXPECT_EQ(test::element_tree(d.render(upper)), test::element_tree(html));
}

TEST(HtmlDocument, EscapesTextForHtml) {
  EXPECT_EQ(escape_html_text("a < b & c > d\xC2\xA0" "e"), "a &lt; b &amp; c &gt; d&nbsp;e");
}

}  // namespace
}  // namespace nmt::text
