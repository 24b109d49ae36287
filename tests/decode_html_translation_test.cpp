// HTML through the translator with a real vocabulary and a small random
// model: every snippet's output parses to the same element tree, text
// without inline tags translates exactly as the same text given as a
// paragraph, and bad input gives a translation or a clear error, never a crash.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "decode/html_translation.h"
#include "document/document.h"
#include "tests/html_test_util.h"
#include "tests/test_support.h"
#include "tests/vocab_test_util.h"
#include "text/html_document.h"
#include "vocab/vocabularies.h"

namespace nmt::decode {
namespace {

class HtmlTranslation : public test::ToyVocabularyTest {
 protected:
  static void SetUpTestSuite() {
    ToyVocabularyTest::SetUpTestSuite();
    TranslatorOptions o;
    o.batch_size = 8;
    o.source_language = "de";
    translator_ = new Translator(test::tiny_model(5, 24, vocabs_->src->size()), *vocabs_, o);
  }
  static void TearDownTestSuite() {
    delete translator_;
    translator_ = nullptr;
    ToyVocabularyTest::TearDownTestSuite();
  }
  static std::string translate(const std::string& html) {
    HtmlTranslator t(*translator_);
    return t.translate({html}).at(0).html;
  }
  // The text path's translation of `paragraph`, escaped for HTML.
  static std::string as_paragraph(const std::string& paragraph) {
    const auto plan = translator_->plan(paragraph, true);
    const auto hyps = translator_->translate_ids(plan.pieces);
    return text::escape_html_text(translator_->rebuild(plan, hyps).texts.at(0));
  }

  static inline Translator* translator_ = nullptr;
};

TEST_F(HtmlTranslation, EverySnippetKeepsItsElementTree) {
  HtmlTranslator t(*translator_);
  const auto& snippets = test::html_snippets();
  ASSERT_GE(snippets.size(), 30u);
  const auto out = t.translate(snippets);  // all in one set of batches
  for (size_t k = 0; k < snippets.size(); ++k) {
    EXPECT_EQ(test::element_tree(out[k].html), test::element_tree(snippets[k])) << snippets[k] << "\n" << out[k].html;
    EXPECT_EQ(out[k].html, translate(snippets[k])) << "batched with others or alone: the same";
  }
}

TEST_F(HtmlTranslation, TextWithoutInlineTagsIsTranslatedAsAParagraph) {
  const std::string p = "Ein Mann sieht einen Hund. Eine Frau liest ein Buch.";
  EXPECT_EQ(translate("<p>" + p + "</p>"), "<p>" + as_paragraph(p) + "</p>");
  EXPECT_EQ(translate(p), as_paragraph(p));
  EXPECT_EQ(translate("<ul>\n  <li>Ein Hund.</li>\n</ul>"), "<ul>\n  <li>" + as_paragraph("Ein Hund.") + "</li>\n</ul>");
  // Untouched: scripts, code, comments, no-translate, attributes other than title/alt/placeholder.
  const std::string fixed = "<script>if (a < b) x();</script><code>Ein Hund</code><!-- Ein Hund -->"
                            "<p translate=\"no\">Ein Hund</p><a href=\"Ein%20Hund\"></a>";
  EXPECT_EQ(translate(fixed), fixed);
  // Attributes are translated as text.
  EXPECT_EQ(translate("<img alt=\"Ein Hund.\">"), "<img alt=\"" + as_paragraph("Ein Hund.") + "\">");
}

TEST_F(HtmlTranslation, KeptPiecesAndPlaceholdersComeOutOnceEachInsideTheirSentence) {
  const std::vector<std::string> kept = {"<code>x()</code>", "<span translate=\"no\">Acme &amp; Co</span>",
                                         "<kbd class=\"notranslate\">Strg</kbd>", "{0}", "%s"};
  const std::string html = "<p>Ein Mann <code>x()</code> sieht <span translate=\"no\">Acme &amp; Co</span> einen "
                           "<b>Hund <kbd class=\"notranslate\">Strg</kbd></b> {0} und %s.</p>";
  const std::string out = translate(html);
  for (const auto& k : kept) {
    size_t n = 0;
    for (size_t at = out.find(k); at != std::string::npos; at = out.find(k, at + 1)) ++n;
    EXPECT_EQ(n, 1u) << k << " in " << out;
  }
  // Placed by alignment (a random model's here), kept pieces may change places with the other elements, never count.
  for (const std::string tag : {"<p>", "</p>", "<b>", "</b>"}) EXPECT_EQ(out.find(tag), out.rfind(tag)) << out;
  // The sentence is one unit: no kept piece splits it (nothing of the source's words is left in place).
  EXPECT_EQ(out.find("Ein Mann"), std::string::npos) << out;
}

// Markdown's inline HTML goes to the same reader: what it marks not to
// translate comes out verbatim once, with Markdown's own kept pieces.
TEST_F(HtmlTranslation, AMarkdownDocumentsInlineHtmlIsKeptByTheHtmlReader) {
  const std::vector<std::string> kept = {"<span class=\"notranslate\">Ein Hund</span>", "<code>x()</code>", "`y`",
                                         "<https://example.com/a>"};
  const std::string md = "# Ein Mann sieht <span class=\"notranslate\">Ein Hund</span> und <code>x()</code>.\n\n"
                         "Eine *Frau* liest `y` bei <https://example.com/a>.\n";
  auto doc = document::open_document(document::DocumentFormat::kMarkdown, md, "a.md");
  HtmlTranslator t(*translator_);
  const std::string out = document::translate_document(*doc, "de", [&](const std::vector<std::string>& texts) {
    std::vector<std::string> html;
    for (const auto& r : t.translate(texts)) html.push_back(r.html);
    return html;
  });
  for (const auto& k : kept) {
    size_t n = 0;
    for (size_t at = out.find(k); at != std::string::npos; at = out.find(k, at + 1)) ++n;
    EXPECT_EQ(n, 1u) << k << " in " << out;
  }
  EXPECT_EQ(out.rfind("# ", 0), 0u) << out;
  EXPECT_EQ(out.find("Ein Mann"), std::string::npos) << "the rest is translated: " << out;
  EXPECT_EQ(out.find("data-"), std::string::npos) << "no marker is left: " << out;
}

TEST_F(HtmlTranslation, BadInputGivesATranslationOrAnErrorNeverACrash) {
  HtmlTranslator t(*translator_);
  // Unclosed tags, binary data, an empty body.
  for (const std::string html : {"<p>offen <b>fett <i>kursiv", "<p><<<>>>&&&;</p>", "", "<body></body>"}) {
    EXPECT_EQ(test::element_tree(translate(html)), test::element_tree(html)) << html;
  }
  const auto binary = t.translate({std::string("\x00\xFF\xFE<p>\x80", 8)});
  EXPECT_TRUE(binary[0].invalid_utf8);
}

TEST_F(HtmlTranslation, TenThousandNestedElements) {
  // 10,000 nested elements, block and inline.
  std::string deep_div, deep_b;
  for (int i = 0; i < 10000; ++i) deep_div += "<div>", deep_b += "<b>";
  deep_div += "Ein Hund.";
  deep_b += "Ein Hund.";
  for (int i = 0; i < 10000; ++i) deep_div += "</div>", deep_b += "</b>";
  EXPECT_EQ(test::element_tree(translate(deep_div)), test::element_tree(deep_div));
  EXPECT_EQ(test::element_tree(translate(deep_b)), test::element_tree(deep_b));
}

TEST_F(HtmlTranslation, APageOfOverOneMegabyte) {
  HtmlTranslator t(*translator_);
  // As pages are: mostly styles, scripts and markup, with a few thousand
  // sentences of text (their translation is what takes the time).
  std::string page = "<!DOCTYPE html><html><head><style>";
  while (page.size() < (400u << 10)) page += ".c" + std::to_string(page.size()) + " { margin: 0 auto; }\n";
  page += "</style><script>";
  while (page.size() < (800u << 10)) page += "var v" + std::to_string(page.size()) + " = \"<p>Ein Hund</p>\";\n";
  page += "</script></head><body>";
  for (int i = 0; page.size() < (1100u << 10); ++i) {
    page += i % 10 ? "<div class=\"c1 c2\" data-x=\"" + std::to_string(i) + "\"><span></span></div>\n"
                   : "<p>Ein <b>Mann</b> sieht einen Hund. Eine Frau liest.</p>\n";
  }
  page += "</body></html>";
  const auto big = t.translate({page});
  EXPECT_EQ(test::element_tree(big[0].html), test::element_tree(page));
  EXPECT_GT(big[0].sentences, 500);
}

}  // namespace
}  // namespace nmt::decode
