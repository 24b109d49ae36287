// A document's paragraph as the HTML fragment it is translated as, and
// rebuilt from a translation: runs that look alike are one stretch, runs
// that look different are spans, everything else is a marker; the rebuilt
// paragraph has a copy of the right run around each stretch of words and
// the very same kept nodes, moved.
#include <gtest/gtest.h>

#include <sstream>

#include "document/office_dialects.h"
#include "document/paragraph_text.h"
#include "document/xml_part.h"
#include "tests/document_test_util.h"

namespace nmt::document {
namespace {

// Parses a document around `body` and returns its first paragraph's text object.
struct Doc {
  explicit Doc(const std::string& body) { parse_xml_part(xml, test::document_xml(body), "test"); }
  std::vector<pugi::xml_node> paragraphs() const { return find_paragraphs(xml, wordprocessing_dialect()); }
  std::string body() const {
    std::ostringstream out;
    for (pugi::xml_node p : xml.child("w:document").child("w:body").children()) p.print(out, "", pugi::format_raw);
    return out.str();
  }
  pugi::xml_document xml;
};

const std::string kBold = "<w:rPr><w:b/></w:rPr>";

std::string run(const std::string& text, const std::string& props = "", const std::string& attrs = "") {
  return "<w:r" + attrs + ">" + props + "<w:t xml:space=\"preserve\">" + text + "</w:t></w:r>";
}

TEST(ParagraphText, RunsSplitBySpellCheckAreOneStretchAndNoMarkup) {
  // Word's spell-checker leaves runs that differ only in revision ids and marks.
  const Doc split("<w:p><w:pPr><w:pStyle w:val=\"BodyText\"/></w:pPr>" + run("The wo", "", " w:rsidR=\"00A1\"") +
                  "<w:proofErr w:type=\"spellStart\"/>" +
                  run("man has", "<w:rPr><w:lang w:val=\"en-GB\"/></w:rPr>", " w:rsidR=\"00B2\"") +
                  "<w:proofErr w:type=\"spellEnd\"/>" + run(" waited.", "", " w:rsidRPr=\"00C3\"") + "</w:p>");
  const Doc whole("<w:p>" + run("The woman has waited.") + "</w:p>");
  const ParagraphText a(split.paragraphs()[0], wordprocessing_dialect());
  const ParagraphText b(whole.paragraphs()[0], wordprocessing_dialect());
  EXPECT_EQ(a.html(), "The woman has waited.");
  EXPECT_EQ(a.html(), b.html());
}

TEST(ParagraphText, ARunThatLooksDifferentIsASpanAndComesBackOnItsWords) {
  Doc doc("<w:p>" + run("The ") + run("big", kBold) + run(" dog & the cat.") + "</w:p>");
  ParagraphText p(doc.paragraphs()[0], wordprocessing_dialect());
  EXPECT_EQ(p.html(), "The <span data-k=\"1\">big</span> dog &amp; the cat.");
  p.apply("Der <span data-k=\"1\">gro\xC3\x9F" "e</span> Hund &amp; die Katze.");
  EXPECT_EQ(doc.body(), "<w:p>" + run("Der ") + run("gro\xC3\x9F" "e", kBold) + run(" Hund &amp; die Katze.") + "</w:p>");
}

TEST(ParagraphText, KeptObjectsAreMovedNotCopiedAndFieldsHiddenTextAndCodeStayAsTheyAre) {
  const std::string field = "<w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText> HYPERLINK x </w:instrText></w:r>"
                            "<w:r><w:fldChar w:fldCharType=\"separate\"/></w:r>" + run("shown") +
                            "<w:r><w:fldChar w:fldCharType=\"end\"/></w:r>";
  const std::string hidden = run("secret", "<w:rPr><w:vanish/></w:rPr>");
  const std::string code = run("ls", "<w:rPr><w:rStyle w:val=\"VerbatimChar\"/></w:rPr>");
  Doc doc("<w:p>" + run("A dog ") + "<w:r><w:drawing><w:txbxContent><w:p>" + run("Inside.") +
          "</w:p></w:txbxContent></w:drawing></w:r>" + run(" runs ") + field + hidden + code + run(" home.") + "</w:p>");
  const auto paragraphs = doc.paragraphs();
  ASSERT_EQ(paragraphs.size(), 2u);  // the text box's paragraph is one of its own
  const pugi::xml_node drawing = doc.xml.select_node("//w:drawing").node();
  ParagraphText p(paragraphs[0], wordprocessing_dialect());
  EXPECT_EQ(p.html(), "A dog <span data-a=\"1\"></span> runs <span data-a=\"3\"></span><span data-a=\"4\"></span>"
                      "<span data-a=\"5\"></span><span data-a=\"6\"></span><span data-a=\"7\"></span>"
                      "<span data-a=\"8\"></span><span data-a=\"9\"></span> home.");
  // The translator moved the picture to the end; markers that went missing are kept after the words.
  p.apply("Ein Hund l\xC3\xA4uft nach Hause.<span data-a=\"1\"></span>");
  EXPECT_EQ(doc.xml.select_node("//w:drawing").node(), drawing);  // the same node
  const std::string body = doc.body();
  EXPECT_NE(body.find(run("Ein Hund l\xC3\xA4uft nach Hause.") + "<w:r><w:drawing>"), std::string::npos) << body;
  for (const std::string& kept : {std::string("HYPERLINK x"), run("shown"), hidden, code}) {
    EXPECT_NE(body.find(kept), std::string::npos) << kept << " in " << body;
  }
}

TEST(ParagraphText, WhatOpensOrClosesTheParagraphStaysThere) {
  // A footnote's own mark opens its paragraph, before the space.
  Doc doc("<w:p><w:r><w:footnoteRef/></w:r>" + run(" A note.") + "</w:p>");
  ParagraphText p(doc.paragraphs()[0], wordprocessing_dialect());
  EXPECT_EQ(p.html(), " A note.");
  p.apply(" Eine Notiz.");
  EXPECT_EQ(doc.body(), "<w:p><w:r><w:footnoteRef/></w:r>" + run(" Eine Notiz.") + "</w:p>");
}

TEST(ParagraphText, CodeParagraphsAndParagraphsWithoutWordsAreLeftAlone) {
  const Doc doc("<w:p><w:pPr><w:pStyle w:val=\"SourceCode\"/></w:pPr>" + run("int main() {}") + "</w:p><w:p>" +
                run("  ") + "<w:r><w:br/></w:r></w:p>");
  for (const auto& p : doc.paragraphs()) EXPECT_FALSE(ParagraphText(p, wordprocessing_dialect()).translatable());
}

TEST(ParagraphText, OpenDocumentSpansLinksAndSpaces) {
  pugi::xml_document xml;
  parse_xml_part(xml,
                 "<office:text xmlns:office=\"o\" xmlns:text=\"t\" xmlns:style=\"s\" xmlns:xlink=\"x\">"
                 "<style:style style:name=\"P1\" style:parent-style-name=\"Preformatted_20_Text\"/>"
                 "<text:p>A  <text:span text:style-name=\"T1\">red</text:span><text:s text:c=\"2\"/>car near the "
                 "<text:a xlink:href=\"https://example.com\">house</text:a>.</text:p>"
                 "<text:p text:style-name=\"P1\">code()</text:p></office:text>",
                 "test");
  const ParagraphDialect dialect = opendocument_dialect(xml);
  const auto paragraphs = find_paragraphs(xml, dialect);
  ASSERT_EQ(paragraphs.size(), 2u);
  EXPECT_FALSE(ParagraphText(paragraphs[1], dialect).translatable());  // its style's parent is code
  ParagraphText p(paragraphs[0], dialect);
  EXPECT_EQ(p.html(), "A <span data-k=\"1\">red</span>  car near the <span data-k=\"2\">house</span>.");
  p.apply("Ein <span data-k=\"1\">rotes</span> Auto beim <span data-k=\"2\">Haus</span>.");
  std::ostringstream out;
  paragraphs[0].print(out, "", pugi::format_raw);
  EXPECT_EQ(out.str(), "<text:p>Ein <text:span text:style-name=\"T1\">rotes</text:span> Auto beim "
                       "<text:a xlink:href=\"https://example.com\">Haus</text:a>.</text:p>");
}

}  // namespace
}  // namespace nmt::document
