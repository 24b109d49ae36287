// Documents read, rebuilt and refused without a model: an identity
// "translation" gives back the same text and the same bytes for everything
// else; damaged, hostile and mislabelled files get one clear message.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "document/document.h"
#include "document/zip_archive.h"
#include "tests/document_test_util.h"

namespace nmt::document {
namespace {

const ChunkTranslator kIdentity = [](const std::vector<std::string>& texts) { return texts; };

std::string entry_of(const std::string& archive, const std::string& entry) {
  return ZipArchive(archive, "test").read(entry);
}

const std::string kBody =
    "<w:p><w:r><w:t xml:space=\"preserve\">The </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>big</w:t></w:r>"
    "<w:r><w:t xml:space=\"preserve\"> dog &amp; the cat.</w:t></w:r></w:p>";

TEST(DocumentFormats, FormatsByExtension) {
  EXPECT_EQ(document_format("report.DOCX"), DocumentFormat::kDocx);
  EXPECT_EQ(document_format(".srt"), DocumentFormat::kSrt);
  EXPECT_EQ(document_format("md"), DocumentFormat::kMarkdown);
  EXPECT_EQ(document_format("page.html"), std::nullopt);
  EXPECT_EQ(document_format("notes.txt"), std::nullopt);
  EXPECT_EQ(document_extensions().size(), 7u);
}

TEST(DocumentFormats, AnIdentityTranslationGivesTheSameTextAndEveryOtherEntryByteForByte) {
  const std::string picture(5000, '\x7f');
  const std::string docx = test::docx_of(kBody, picture);
  auto doc = open_document(DocumentFormat::kDocx, docx, "a.docx");
  ASSERT_EQ(doc->texts().size(), 1u);
  EXPECT_EQ(doc->texts()[0], "The <span data-k=\"1\">big</span> dog &amp; the cat.");
  const std::string out = translate_document(*doc, "de", kIdentity);
  EXPECT_EQ(entry_of(out, "word/media/image1.png"), picture);
  EXPECT_EQ(entry_of(out, "[Content_Types].xml"), entry_of(docx, "[Content_Types].xml"));
  pugi::xml_document before, after;
  before.load_string(entry_of(docx, "word/document.xml").c_str());
  after.load_string(entry_of(out, "word/document.xml").c_str());
  std::string text_before, text_after;
  for (const auto& t : before.select_nodes("//w:t")) text_before += t.node().child_value();
  for (const auto& t : after.select_nodes("//w:t")) text_after += t.node().child_value();
  EXPECT_EQ(text_after, text_before);
  EXPECT_EQ(after.select_nodes("//w:b").size(), 1u);
}

TEST(DocumentFormats, EveryPartPeopleSeeIsTranslated) {
  const auto part = [](const std::string& root, const std::string& text) {
    return "<?xml version=\"1.0\"?><w:" + root + " " + test::kWordNamespaces + "><w:x><w:p><w:r><w:t>" + text +
           "</w:t></w:r></w:p></w:x></w:" + root + ">";
  };
  const std::string docx = test::zip_of(
      {{"word/document.xml", test::document_xml("<w:p><w:r><w:t>Body.</w:t></w:r></w:p>")},
       {"word/header1.xml", part("hdr", "Header.")},
       {"word/footer2.xml", part("ftr", "Footer.")},
       {"word/footnotes.xml", part("footnotes", "Footnote.")},
       {"word/endnotes.xml", part("endnotes", "Endnote.")},
       {"word/comments.xml", part("comments", "Comment.")},
       {"word/styles.xml", part("styles", "Not text.")},
       {"docProps/core.xml", "<cp:coreProperties xmlns:cp=\"c\" xmlns:dc=\"d\"><dc:title>Title.</dc:title></cp:coreProperties>"}});
  auto doc = open_document(DocumentFormat::kDocx, docx, "all.docx");
  EXPECT_EQ(doc->texts(), (std::vector<std::string>{"Body.", "Footnote.", "Endnote.", "Comment.", "Header.", "Footer.", "Title."}));
  const std::string pptx = test::zip_of(
      {{"ppt/presentation.xml", "<p/>"},
       {"ppt/slides/slide10.xml", "<p:sld xmlns:a=\"a\" xmlns:p=\"p\"><a:p><a:r><a:t>Ten.</a:t></a:r></a:p></p:sld>"},
       {"ppt/slides/slide2.xml", "<p:sld xmlns:a=\"a\" xmlns:p=\"p\"><a:p><a:r><a:t>Two.</a:t></a:r><a:endParaRPr/></a:p></p:sld>"},
       {"ppt/notesSlides/notesSlide2.xml",
        "<p:notes xmlns:a=\"a\" xmlns:p=\"p\"><a:p><a:fld type=\"slidenum\"><a:t>2</a:t></a:fld></a:p>"
        "<a:p><a:r><a:t>Notes.</a:t></a:r></a:p></p:notes>"}});
  auto slides = open_document(DocumentFormat::kPptx, pptx, "s.pptx");
  // Slides in their order (2 before 10), then the notes; the slide number field is left alone.
  EXPECT_EQ(slides->texts(), (std::vector<std::string>{"Two.", "Ten.", "Notes."}));
  const std::string out = slides->render({"Zwei.", "Zehn.", "Notizen."}, "de");
  EXPECT_NE(entry_of(out, "ppt/slides/slide2.xml").find("<a:r><a:t>Zwei.</a:t></a:r><a:endParaRPr/>"), std::string::npos)
      << entry_of(out, "ppt/slides/slide2.xml");
}

TEST(DocumentFormats, DamagedHostileAndMislabelledFilesAreRefusedClearly) {
  const std::string docx = test::docx_of(kBody);
  const auto refusal = [](DocumentFormat f, const std::string& bytes, DocumentLimits limits = {}) {
    return test::data_error_of([&] { open_document(f, bytes, "up.docx", limits); });
  };
  // A zip bomb: 16 MiB of spaces in a few KiB.
  const std::string bomb = test::zip_of({{"word/document.xml", std::string(16 << 20, ' ')}});
  EXPECT_LT(bomb.size(), 100000u);
  EXPECT_NE(refusal(DocumentFormat::kDocx, bomb).find("as only a zip bomb does"), std::string::npos);
  DocumentLimits small;
  small.archive.max_total_bytes = 100;
  EXPECT_NE(refusal(DocumentFormat::kDocx, docx, small).find("inflates to over 100 bytes"), std::string::npos);
  small = {};
  small.archive.max_entries = 2;
  EXPECT_NE(refusal(DocumentFormat::kDocx, docx, small).find("holds 3 entries"), std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kDocx, docx.substr(0, docx.size() - 40)).find("not a readable zip archive"),
            std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kDocx, std::string("\x00\x01\xfe junk", 8)).find("not a readable zip archive"),
            std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kDocx, "A plain text file.\n").find("up.docx is not a readable zip archive"),
            std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kOdt, docx).find("is not an OpenDocument text (.odt)"), std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kPptx, docx).find("it has no ppt/presentation.xml"), std::string::npos);
  // A billion laughs: refused before any entity could grow.
  std::string laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">";
  for (int i = 1; i < 10; ++i) {
    laughs += "<!ENTITY lol" + std::to_string(i) + " \"" + std::string("&lol") + (i > 1 ? std::to_string(i - 1) : "") + ";";
    for (int k = 0; k < 9; ++k) laughs += std::string("&lol") + (i > 1 ? std::to_string(i - 1) : "") + ";";
    laughs += "\">";
  }
  laughs += "]><w:document " + std::string(test::kWordNamespaces) + "><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>";
  const std::string lol = test::zip_of({{"word/document.xml", laughs}});
  EXPECT_NE(refusal(DocumentFormat::kDocx, lol).find("up.docx: word/document.xml declares a DOCTYPE"), std::string::npos);
  const std::string broken = test::zip_of({{"word/document.xml", "<w:document><w:body><w:p>"}});
  EXPECT_NE(refusal(DocumentFormat::kDocx, broken).find("is not well-formed XML"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "<a>";
  for (int i = 0; i < 1000; ++i) deep += "</a>";
  EXPECT_NE(refusal(DocumentFormat::kDocx, test::zip_of({{"word/document.xml", deep}})).find("nests elements over"),
            std::string::npos);
  small = {};
  small.max_bytes = 100;
  EXPECT_NE(refusal(DocumentFormat::kDocx, docx, small).find("documents of at most 100 bytes"), std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kSrt, "1\nnot a timing\nHello\n").find("line 1: expected a cue's number"),
            std::string::npos);
  EXPECT_NE(refusal(DocumentFormat::kSrt, "1\n00:00:01,000 --> 00:00:02,000\n\xff\n").find("not valid UTF-8"),
            std::string::npos);
}

const std::string kSubtitles =
    "1\r\n00:00:01,000 --> 00:00:03,000\r\nThe woman has waited\r\n\r\n"
    "2\r\n00:00:03,500 --> 00:00:05,000\r\nfor the girl because the boy\r\nhas played with the girls.\r\n\r\n"
    "3\r\n00:00:05,500 --> 00:00:07,000\r\n<i>Does she close the black bag?</i>\r\n";

TEST(DocumentFormats, SubtitlesKeepNumbersTimingsAndLineEndsAndASentenceSpanningCuesIsOneText) {
  auto doc = open_document(DocumentFormat::kSrt, kSubtitles, "s.srt");
  ASSERT_EQ(doc->texts().size(), 2u);  // the first sentence spans cues 1 and 2
  EXPECT_EQ(doc->texts()[0],
            "<span data-c=\"0\"><span data-l=\"0\">The woman has waited</span></span> <span data-c=\"1\"><span "
            "data-l=\"0\">for the girl because the boy</span> <span data-l=\"1\">has played with the girls.</span></span>");
  EXPECT_EQ(translate_document(*doc, "de", kIdentity), kSubtitles);
  // Words spread over the cues where the translation put them.
  auto again = open_document(DocumentFormat::kSrt, kSubtitles, "s.srt");
  const std::string out = again->render(
      {"<span data-c=\"0\"><span data-l=\"0\">Die Frau hat auf das M\xC3\xA4" "dchen gewartet,</span></span> "
       "<span data-c=\"1\"><span data-l=\"0\">weil der Junge</span> <span data-l=\"1\">mit den M\xC3\xA4" "dchen "
       "gespielt hat.</span></span>",
       "<span data-c=\"2\"><span data-l=\"0\"><i>Macht sie die schwarze Tasche zu?</i></span></span>"},
      "de");
  EXPECT_EQ(out, "1\r\n00:00:01,000 --> 00:00:03,000\r\nDie Frau hat auf das M\xC3\xA4" "dchen gewartet,\r\n\r\n"
                 "2\r\n00:00:03,500 --> 00:00:05,000\r\nweil der Junge\r\nmit den M\xC3\xA4" "dchen gespielt hat.\r\n\r\n"
                 "3\r\n00:00:05,500 --> 00:00:07,000\r\n<i>Macht sie die schwarze Tasche zu?</i>\r\n");
}

TEST(DocumentFormats, AnEpubsPagesGoThroughTheHtmlPathAndItsLanguageBecomesTheTarget) {
  const std::string page = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"
                           "<head><title>One</title></head><body><p>A dog\xC2\xA0runs.</p></body></html>";
  const std::string opf =
      "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\"><metadata "
      "xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>A &amp; B</dc:title><dc:language>en</dc:language></metadata>"
      "<manifest><item id=\"c1\" href=\"text/one.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>"
      "<spine><itemref idref=\"c1\"/></spine></package>";
  const std::string epub = test::zip_of({{"mimetype", "application/epub+zip"},
                                         {"META-INF/container.xml",
                                          "<?xml version=\"1.0\"?><container><rootfiles><rootfile full-path=\"OEBPS/book.opf\"/>"
                                          "</rootfiles></container>"},
                                         {"OEBPS/book.opf", opf},
                                         {"OEBPS/text/one.xhtml", page}},
                                        /*stored=*/true);
  auto doc = open_document(DocumentFormat::kEpub, epub, "b.epub");
  ASSERT_EQ(doc->texts().size(), 2u);  // the page and the title
  EXPECT_EQ(doc->texts()[0].rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(doc->texts()[1], "A &amp; B");
  std::vector<std::string> translated = doc->texts();
  translated[0].replace(translated[0].find("A dog\xC2\xA0runs."), 10, "Ein Hund&nbsp;l\xC3\xA4uft.");
  const std::string out = doc->render(translated, "de");
  ZipArchive zip(out, "out.epub");
  EXPECT_EQ(zip.names().front(), "mimetype");
  EXPECT_EQ(zip.read("mimetype"), "application/epub+zip");
  const std::string new_page = zip.read("OEBPS/text/one.xhtml");
  EXPECT_EQ(new_page.rfind("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(new_page.find("Ein Hund&#160;l\xC3\xA4uft."), std::string::npos) << new_page;  // XML has no &nbsp;
  pugi::xml_document xhtml;
  EXPECT_TRUE(xhtml.load_string(new_page.c_str()));
  const std::string package = zip.read("OEBPS/book.opf");
  EXPECT_NE(package.find("<dc:language>de</dc:language>"), std::string::npos) << package;
  EXPECT_NE(package.find("<dc:title>A &amp; B</dc:title>"), std::string::npos) << package;
}

TEST(DocumentFormats, MarkdownKeepsItsStructureAndCodeAndTranslatesTheRest) {
  const std::string md =
      "---\ntitle: x\n---\n\n# A **big** dog #\n\nThe man has *opened* the\n[black bag](https://example.com \"t\").\n\n"
      "- The cup is `cheap`.\n  1. Does she close ~~the~~ it?\n> We want to sleep.\n\n"
      "| The cup | is cheap |\n|---|:--:|\n| a \\| b | ![alt](p.png) |\n\n```sh\nls *.md # not text\n```\n\n"
      "    indented code\n\n[ref]: https://example.com\n***\n";
  auto doc = open_document(DocumentFormat::kMarkdown, md, "a.md");
  const std::vector<std::string> expected = {
      "A <b data-d=\"0\">big</b> dog",
      "The man has <i data-d=\"0\">opened</i> the <a data-m=\"0\">black bag</a>.",
      "The cup is <span data-a=\"0\"></span>.",
      "Does she close <s data-d=\"0\">the</s> it?",
      "We want to sleep.",
      "The cup",
      "is cheap",
      "a <span data-a=\"0\"></span> b"};
  EXPECT_EQ(doc->texts(), expected);
  // An identity translation gives back the same file, but for the paragraph's lines joined.
  std::string joined = md;
  joined.replace(joined.find("the\n[black"), 4, "the ");
  EXPECT_EQ(translate_document(*doc, "de", kIdentity), joined);
  auto again = open_document(DocumentFormat::kMarkdown, md, "a.md");
  std::vector<std::string> translated = again->texts();
  translated[1] = "Der Mann hat die <a data-m=\"0\">schwarze Tasche</a> <i data-d=\"0\">aufgemacht</i>.";
  const std::string out = again->render(translated, "de");
  EXPECT_NE(out.find("\nDer Mann hat die [schwarze Tasche](https://example.com \"t\") *aufgemacht*.\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("```sh\nls *.md # not text\n```"), std::string::npos);
}

TEST(DocumentFormats, MarkdownsInlineHtmlStaysHtmlAndComesBackAsTheTranslationSpellsIt) {
  const std::string md = "Press <span class=\"notranslate\">Save now</span> and see <https://example.com> or "
                         "<b>this</b><br>.\n";
  auto doc = open_document(DocumentFormat::kMarkdown, md, "a.md");
  ASSERT_EQ(doc->texts().size(), 1u);
  EXPECT_EQ(doc->texts()[0], "Press <span class=\"notranslate\">Save now</span> and see <span data-a=\"0\"></span> or "
                             "<b>this</b><br>.");
  EXPECT_EQ(translate_document(*doc, "de", kIdentity), md);
  auto again = open_document(DocumentFormat::kMarkdown, md, "a.md");
  const std::string out = again->render(
      {"Dr\xC3\xBC" "cke <span class=\"notranslate\">Save now</span> &amp; sieh <span data-a=\"0\"></span> oder "
       "<b>das</b><br>."},
      "de");
  EXPECT_EQ(out, "Dr\xC3\xBC" "cke <span class=\"notranslate\">Save now</span> & sieh <https://example.com> oder "
                 "<b>das</b><br>.\n");
  // Inline HTML with data- attributes of its own (the markers' kind) is kept as written.
  const std::string data = "An <abbr data-x=\"1\">HTML</abbr> page.\n";
  auto kept = open_document(DocumentFormat::kMarkdown, data, "b.md");
  EXPECT_EQ(kept->texts()[0], "An <span data-a=\"0\"></span>HTML<span data-a=\"1\"></span> page.");
  EXPECT_EQ(translate_document(*kept, "de", kIdentity), data);
}

}  // namespace
}  // namespace nmt::document
