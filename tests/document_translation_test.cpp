// Documents translated by the sample model (tests/sample_model_util.h):
// pandoc- and LibreOffice-made files keep their structure, images and
// formatting (bench/document_formatting.py with the floors of issue 50); a
// paragraph in many runs translates as in one; a sentence over three cues is
// translated whole; the server translates files in parts and refuses
// hostile ones with LibreTranslate's 400.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <regex>
#include <sstream>

#include "data_test_util.h"
#include "document/zip_archive.h"
#include "tests/document_test_util.h"
#include "tests/sample_model_util.h"
#include "tests/serve_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class DocumentTranslation : public test::SampleModelTest {
 protected:

  static std::string translator() { return test::shell_quote(test::binary_dir() + "/translator"); }
  static test::CommandResult translate_file(const std::string& in, const std::string& out, const std::string& flags = "") {
    // fp32 on one thread, as plain() translates.
    return test::run_command(translator() + " --precision fp32 --threads 1 --model " +
                             test::shell_quote(test::sample_model_dir()) + " --input " + test::shell_quote(in) +
                             " --output " + test::shell_quote(out) + " " + flags);
  }
  // The plain-text translation of each line, as the translator gives it.
  static std::vector<std::string> plain(const std::vector<std::string>& lines) {
    return test::cli_translations(test::sample_model_dir(), lines);
  }
  static std::vector<std::string> sample_lines(size_t n) {
    std::ifstream in(test::source_dir() + "/examples/sample/test.en");
    std::vector<std::string> out;
    for (std::string line; out.size() < n && std::getline(in, line);) out.push_back(line);
    return out;
  }
  // Per paragraph of a .docx's body, its text.
  static std::vector<std::string> paragraphs_of(const std::string& docx) {
    pugi::xml_document xml;
    xml.load_string(document::ZipArchive(test::read_text(docx), docx).read("word/document.xml").c_str());
    std::vector<std::string> out;
    for (const auto& p : xml.select_nodes("//w:p")) {
      std::string text;
      for (const auto& t : p.node().select_nodes(".//w:t")) text += t.node().child_value();
      out.push_back(text);
    }
    return out;
  }
  static void write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
};

TEST_F(DocumentTranslation, RealDocumentsKeepStructureImagesAndFormatting) {
  if (!fs::exists("/usr/bin/pandoc")) GTEST_SKIP() << "pandoc is not installed (scripts/install_deps.sh --test)";
  const auto r = test::run_command("cd " + test::shell_quote(test::source_dir()) +
                                   " && /usr/bin/python3 bench/document_formatting.py " +
                                   test::shell_quote(test::sample_model_dir()) + " --translator " + translator() +
                                   " --floor 0.9");
  std::cout << r.output;
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 5) << "a header and four formats, no misses";
}

TEST_F(DocumentTranslation, AParagraphInManyRunsTranslatesAsTheSameParagraphInOne) {
  const auto lines = sample_lines(8);
  std::string whole, split;
  int rsid = 0;
  for (const auto& line : lines) {
    whole += "<w:p><w:r><w:t xml:space=\"preserve\">" + line + "</w:t></w:r></w:p>";
    // As Word's spell-checker leaves it: a run a word, revision ids and marks between.
    split += "<w:p>";
    std::istringstream words(line);
    bool first = true;
    for (std::string word; words >> word; first = false) {
      split += "<w:proofErr w:type=\"spellStart\"/><w:r w:rsidR=\"00" + std::to_string(100 + rsid++) +
               "\"><w:rPr><w:lang w:val=\"en-US\"/></w:rPr><w:t xml:space=\"preserve\">" + (first ? "" : " ") + word +
               "</w:t></w:r><w:proofErr w:type=\"spellEnd\"/>";
    }
    split += "</w:p>";
  }
  write(dir_->path("whole.docx"), test::docx_of(whole));
  write(dir_->path("split.docx"), test::docx_of(split));
  for (const char* name : {"whole", "split"}) {
    const auto r = translate_file(dir_->path(std::string(name) + ".docx"), dir_->path(std::string(name) + "_de.docx"));
    ASSERT_EQ(r.code, 0) << r.output;
  }
  const auto from_whole = paragraphs_of(dir_->path("whole_de.docx"));
  EXPECT_EQ(paragraphs_of(dir_->path("split_de.docx")), from_whole);
  EXPECT_EQ(from_whole, plain(lines));  // and as the lines translate as text
}

TEST_F(DocumentTranslation, ASentenceOverThreeCuesIsTranslatedWholeAndTheCuesKeepTheirTimes) {
  const std::string srt =
      "1\n00:00:01,000 --> 00:00:02,500\nThe brother wants to show\n\n"
      "2\n00:00:02,600 --> 00:00:04,000\nthe old woman\n\n"
      "3\n00:00:04,100 --> 00:00:06,000\nthe house.\n\n"
      "4\n00:00:06,500 --> 00:00:08,000\nThe cup is cheap.\n";
  write(dir_->path("s.srt"), srt);
  const auto r = translate_file(dir_->path("s.srt"), dir_->path("s_de.srt"));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string out = test::read_text(dir_->path("s_de.srt"));
  const std::regex cue(R"((\d+)\n([0-9:,]+ --> [0-9:,]+)\n((?:.+\n?)*))");
  std::vector<std::string> numbers, times, texts;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), cue); it != std::sregex_iterator(); ++it) {
    numbers.push_back((*it)[1]);
    times.push_back((*it)[2]);
    std::string t = (*it)[3];
    while (!t.empty() && t.back() == '\n') t.pop_back();
    texts.push_back(t);
  }
  ASSERT_EQ(numbers, (std::vector<std::string>{"1", "2", "3", "4"})) << out;
  EXPECT_EQ(times, (std::vector<std::string>{"00:00:01,000 --> 00:00:02,500", "00:00:02,600 --> 00:00:04,000",
                                             "00:00:04,100 --> 00:00:06,000", "00:00:06,500 --> 00:00:08,000"}));
  const auto expected = plain({"The brother wants to show the old woman the house.", "The cup is cheap."});
  EXPECT_EQ(texts[0] + " " + texts[1] + " " + texts[2], expected[0]) << out;
  EXPECT_EQ(texts[3], expected[1]);
  for (const auto& t : texts) EXPECT_FALSE(t.empty()) << out;
}

TEST_F(DocumentTranslation, TheCommandLineRefusesABadDocumentAndWritesNothing) {
  write(dir_->path("junk.docx"), std::string("PK\x03\x04 not really a zip", 24));
  const auto r = translate_file(dir_->path("junk.docx"), dir_->path("junk_de.docx"));
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("junk.docx is not a readable zip archive"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_->path("junk_de.docx")));
  const auto no_output = test::run_command(translator() + " --model " + test::shell_quote(test::sample_model_dir()) +
                                           " --input " + test::shell_quote(dir_->path("junk.docx")));
  EXPECT_EQ(no_output.code, 2) << no_output.output;
  EXPECT_NE(no_output.output.find("name it with --output FILE"), std::string::npos) << no_output.output;
}

TEST_F(DocumentTranslation, TheServerTranslatesDocumentsAndRefusesHostileOnes) {
  serve::ServerOptions options;
  options.limits.max_chars = 20000;
  test::ServedModel served(test::sample_model_dir(), options, {});
  const auto lines = sample_lines(3);
  std::string body;
  for (const auto& line : lines) body += "<w:p><w:r><w:t>" + line + "</w:t></w:r></w:p>";
  const auto upload = [&](const std::string& name, const std::string& bytes) {
    auto c = served.client();
    return c.Post("/translate_file", httplib::MultipartFormDataItems{{"file", bytes, name, "application/octet-stream"},
                                                                     {"source", "en", "", ""},
                                                                     {"target", "de", "", ""}});
  };
  const auto ok = upload("letter.docx", test::docx_of(body));
  ASSERT_EQ(ok->status, 200) << ok->body;
  const std::string url = json::parse(ok->body).at("translatedFileUrl");
  EXPECT_NE(url.find("letter_de.docx"), std::string::npos) << url;
  auto c = served.client();
  const auto download = c.Get(url.substr(url.find("/download_file/")));
  ASSERT_EQ(download->status, 200);
  EXPECT_EQ(download->get_header_value("Content-Type"),
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
  write(dir_->path("served.docx"), download->body);
  const auto texts = c.Post("/translate", json{{"q", lines}, {"source", "en"}, {"target", "de"}}.dump(), "application/json");
  EXPECT_EQ(json(paragraphs_of(dir_->path("served.docx"))), json::parse(texts->body).at("translatedText"));
  // Hostile and oversized: LibreTranslate's 400 with what is wrong, and the server goes on.
  std::string many;
  for (int i = 0; i < 10000; ++i) many += "<w:p><w:r><w:t>The cup is cheap.</w:t></w:r></w:p>";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"bomb.docx", test::zip_of({{"word/document.xml", std::string(16 << 20, ' ')}})},
      {"cut.docx", test::docx_of(body).substr(0, 200)},
      {"laughs.odt", test::zip_of({{"mimetype", "application/vnd.oasis.opendocument.text"},
                                   {"content.xml", "<!DOCTYPE x [<!ENTITY a \"aaaa\">]><x>&a;</x>"}})},
      {"many.docx", test::docx_of(many)},
      {"noise.srt", "\x01\x02\x03 binary junk"}};
  for (const auto& [name, bytes] : refused) {
    const auto r = upload(name, bytes);
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(r->status, 400) << name << ": " << r->body;
    const std::string error = json::parse(r->body).at("error");
    EXPECT_EQ(error.rfind("Invalid request: ", 0), 0u) << name << ": " << error;
  }
  EXPECT_EQ(upload("letter.docx", test::docx_of(body))->status, 200);
}

}  // namespace
}  // namespace nmt
