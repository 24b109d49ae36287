// Corrections through the server on the trained sample model: POST /suggest
// stores them (--suggestions DB) and /translate answers each stored
// sentence with its correction from then on, in text, HTML and .docx, alone or
// among other sentences; the store outlives the server; without a store
// /suggest is refused, and bad suggestions are 400s.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "document/zip_archive.h"
#include "tests/document_test_util.h"
#include "tests/sample_model_util.h"
#include "tests/serve_test_util.h"

namespace nmt::test {
namespace {

using nlohmann::json;

class ServedSuggestions : public SampleModelTest {
 protected:
  static json post(httplib::Client& c, const std::string& path, const json& body, int expected = 200) {
    const auto r = c.Post(path, body.dump(), "application/json");
    if (!r) {
      ADD_FAILURE() << path << ": no answer";
      return json();
    }
    EXPECT_EQ(r->status, expected) << path << " " << body.dump() << ": " << r->body;
    return json::parse(r->body);
  }
  static serve::ServerOptions with_store(const std::string& path) {
    serve::ServerOptions o;
    o.suggestions = path;
    return o;
  }
  static std::vector<std::string> test_lines(size_t n) {
    std::ifstream in(source_dir() + "/examples/sample/test.en");
    std::vector<std::string> lines;
    for (std::string l; lines.size() < n && std::getline(in, l);) lines.push_back(l);
    return lines;
  }
};

TEST_F(ServedSuggestions, TwoHundredCorrectionsAreEachAnsweredInTextAndHtml) {
  const auto lines = test_lines(200);
  ASSERT_EQ(lines.size(), 200u);
  ServedModel served(sample_model_dir(), with_store(dir_->path("store.db")), {});
  auto c = served.client();
  const json before = post(c, "/translate", {{"q", lines}, {"source", "en"}, {"target", "de"}});
  std::vector<std::string> corrections;
  for (size_t i = 0; i < lines.size(); ++i) {
    corrections.push_back("Korrektur Nummer " + std::to_string(i) + ".");
    EXPECT_EQ(post(c, "/suggest", {{"q", lines[i]}, {"s", corrections[i]}, {"source", "en"}, {"target", "de"}}),
              (json{{"success", true}}));
  }
  const json text = post(c, "/translate", {{"q", lines}, {"source", "en"}, {"target", "de"}});
  std::vector<std::string> paragraphs;
  for (const auto& l : lines) paragraphs.push_back("<p>" + l + "</p>");
  const json html = post(c, "/translate", {{"q", paragraphs}, {"source", "en"}, {"target", "de"}, {"format", "html"}});
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_NE(before["translatedText"][i], corrections[i]);
    EXPECT_EQ(text["translatedText"][i], corrections[i]);
    EXPECT_EQ(html["translatedText"][i], "<p>" + corrections[i] + "</p>");
  }
  // A .docx of the first 20 sources, one paragraph each: every paragraph comes back as its correction.
  std::string body;
  for (size_t i = 0; i < 20; ++i) body += "<w:p><w:r><w:t>" + lines[i] + "</w:t></w:r></w:p>";
  const auto uploaded = c.Post("/translate_file", httplib::MultipartFormDataItems{{"file", docx_of(body), "c.docx", ""},
                                                                                  {"source", "en", "", ""},
                                                                                  {"target", "de", "", ""}});
  ASSERT_TRUE(uploaded);
  ASSERT_EQ(uploaded->status, 200) << uploaded->body;
  const std::string url = json::parse(uploaded->body)["translatedFileUrl"];
  const auto downloaded = c.Get(url.substr(url.find("/download_file/")));
  ASSERT_TRUE(downloaded);
  const std::string xml = document::ZipArchive(downloaded->body, "c.docx").read("word/document.xml");
  for (size_t i = 0; i < 20; ++i) EXPECT_NE(xml.find(">" + corrections[i] + "<"), std::string::npos) << corrections[i];
  // Among other sentences: the stored one answered, the other translated as before.
  const std::string two = lines[0] + " " + lines[1] + " The cup is cheap.";
  const std::string cup = post(c, "/translate", {{"q", "The cup is cheap."}, {"source", "en"}, {"target", "de"}})["translatedText"];
  const std::string got = post(c, "/translate", {{"q", two}, {"source", "en"}, {"target", "de"}})["translatedText"];
  EXPECT_EQ(got, corrections[0] + " " + corrections[1] + " " + cup);
}

TEST_F(ServedSuggestions, TheStoreOutlivesTheServerAndTheSettingsSaySo) {
  const std::string store = dir_->path("kept.db");
  {
    ServedModel served(sample_model_dir(), with_store(store), {});
    auto c = served.client();
    post(c, "/suggest", {{"q", "The cup is cheap."}, {"s", "Die Tasse kostet wenig."}, {"source", "en"}, {"target", "de"}});
  }
  ServedModel again(sample_model_dir(), with_store(store), {});
  auto c = again.client();
  EXPECT_EQ(post(c, "/translate", {{"q", "The  cup is cheap."}, {"source", "en"}, {"target", "de"}})["translatedText"],
            "Die Tasse kostet wenig.");
  const auto settings = c.Get("/frontend/settings");
  ASSERT_TRUE(settings);
  EXPECT_EQ(json::parse(settings->body)["suggestions"], true);
}

TEST_F(ServedSuggestions, BadSuggestionsAre400sAndNoStoreIs403) {
  ServedModel served(sample_model_dir(), with_store(dir_->path("bad.db")), {});
  auto c = served.client();
  post(c, "/suggest", {{"q", "The cup is cheap."}, {"source", "en"}, {"target", "de"}}, 400);
  post(c, "/suggest", {{"q", " "}, {"s", "x"}, {"source", "en"}, {"target", "de"}}, 400);
  post(c, "/suggest", {{"q", 3}, {"s", "x"}, {"source", "en"}, {"target", "de"}}, 400);
  const auto invalid = c.Post("/suggest", "{\"q\": \"a\", \"s\": \"\xFF\", \"source\": \"en\", \"target\": \"de\"}",
                              "application/json");
  ASSERT_TRUE(invalid);
  EXPECT_EQ(invalid->status, 400) << invalid->body;
  ServedModel plain(sample_model_dir(), {}, {});
  auto p = plain.client();
  const json refused = post(p, "/suggest", {{"q", "a"}, {"s", "b"}, {"source", "en"}, {"target", "de"}}, 403);
  EXPECT_EQ(refused["error"], "Suggestions are disabled on this server.");  // LibreTranslate's words
}

TEST_F(ServedSuggestions, OnlyAReviewKeyListsDecidesExportsAndImports) {
  const std::string keys = dir_->path("keys.txt");
  std::ofstream(keys) << "user-key 0\nreview-key 0 review\n";
  serve::ServerOptions o = with_store(dir_->path("review.db"));
  o.access.api_keys_file = keys;
  ServedModel served(sample_model_dir(), o, {});
  auto c = served.client();
  for (const std::string q : {"The cup is cheap.", "The mice come into the shop."}) {
    post(c, "/suggest", {{"q", q}, {"s", "Korrektur: " + q}, {"source", "en"}, {"target", "de"}, {"api_key", "user-key"}});
  }
  const httplib::Headers user = {{"Authorization", "Bearer user-key"}}, reviewer = {{"Authorization", "Bearer review-key"}};
  // Without the right: neither read nor changed.
  for (const auto& headers : {httplib::Headers{}, user}) {
    EXPECT_EQ(c.Get("/suggestions", headers)->status, 403);
    EXPECT_EQ(c.Get("/suggestions/export", headers)->status, 403);
    EXPECT_EQ(c.Post("/suggestions/1/reject", headers, "", "text/plain")->status, 403);
    EXPECT_EQ(c.Post("/suggestions/import", headers, "<tmx/>", "application/xml")->status, 403);
  }
  const json listed = json::parse(c.Get("/suggestions?status=pending", reviewer)->body);
  ASSERT_EQ(listed["suggestions"].size(), 2u);
  EXPECT_EQ(listed["suggestions"][0]["q"], "The mice come into the shop.");  // newest first
  EXPECT_EQ(listed["suggestions"][0]["with_key"], true);
  EXPECT_FALSE(listed.dump().find("user-key") != std::string::npos);  // keys are never shown
  const int64_t mice = listed["suggestions"][0]["id"], cup = listed["suggestions"][1]["id"];
  const auto rejected = c.Post("/suggestions/" + std::to_string(mice) + "/reject", reviewer, "", "text/plain");
  EXPECT_EQ(json::parse(rejected->body)["status"], "rejected");
  EXPECT_EQ(c.Post("/suggestions/" + std::to_string(cup) + "/accept", reviewer, "", "text/plain")->status, 200);
  EXPECT_EQ(c.Post("/suggestions/999/accept", reviewer, "", "text/plain")->status, 404);
  EXPECT_EQ(c.Post("/suggestions/1/maybe", reviewer, "", "text/plain")->status, 404);
  // A rejected correction answers no more; the accepted one still does.
  const json both = post(c, "/translate", {{"q", {"The cup is cheap.", "The mice come into the shop."}}, {"source", "en"},
                                           {"target", "de"}, {"api_key", "user-key"}});
  EXPECT_EQ(both["translatedText"][0], "Korrektur: The cup is cheap.");
  EXPECT_NE(both["translatedText"][1], "Korrektur: The mice come into the shop.");
  // Export as TMX, import into another server's store, export again: the same bytes.
  const auto tmx = c.Get("/suggestions/export?format=tmx&status=all", reviewer);
  ASSERT_EQ(tmx->status, 200);
  EXPECT_EQ(tmx->get_header_value("Content-Type"), "application/x-tmx+xml");
  const auto tsv = c.Get("/suggestions/export?format=tsv", reviewer);
  EXPECT_NE(tsv->body.find("en\tde\tThe cup is cheap.\tKorrektur: The cup is cheap.\taccepted"), std::string::npos);
  EXPECT_EQ(tsv->body.find("mice"), std::string::npos);  // accepted only, by default
  serve::ServerOptions o2 = with_store(dir_->path("imported.db"));
  o2.access.api_keys_file = keys;
  ServedModel other(sample_model_dir(), o2, {});
  auto c2 = other.client();
  const auto imported = c2.Post("/suggestions/import", reviewer, tmx->body, "application/x-tmx+xml");
  EXPECT_EQ(json::parse(imported->body)["imported"], 2);
  EXPECT_EQ(c2.Get("/suggestions/export?format=tmx&status=all", reviewer)->body, tmx->body);
  const auto bad = c2.Post("/suggestions/import", reviewer, "<tmx>\n<body>\n<tu>", "application/xml");
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("line 3"), std::string::npos) << bad->body;
}

TEST_F(ServedSuggestions, TheAcceptedOnesFineTuneAModelThatServesItsPair) {
  ServedModel served(sample_model_dir(), with_store(dir_->path("tune.db")), {});
  auto c = served.client();
  post(c, "/suggest", {{"q", "The cup is cheap."}, {"s", "Die Tasse kostet wenig."}, {"source", "en"}, {"target", "de"}});
  const std::string tsv = dir_->path("accepted.tsv");
  {
    std::ofstream out(tsv);
    out << "source_lang\ttarget_lang\tsource\tsuggestion\tstatus\n"
        << "en\tde\tThe cup is cheap.\tDie Tasse kostet wenig.\taccepted\n"
        << "en\tde\tThe dog.\tDer Hund.\trejected\n";
  }
  const std::string script = shell_quote(source_dir() + "/scripts/finetune_from_suggestions.sh");
  const std::string tuned = dir_->path("tuned");
  const auto r = run_command("cd " + shell_quote(source_dir()) + " && " + script + " --model " +
                             shell_quote(sample_model_dir()) + " --suggestions " + shell_quote(tsv) +
                             " --replay-src examples/sample/train.en --replay-tgt examples/sample/train.de --out " +
                             shell_quote(tuned) + " --steps 5 --trainer " + shell_quote(binary_dir() + "/trainer"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("1 accepted corrections for en->de"), std::string::npos) << r.output;
  ServedModel tuned_served(tuned, {}, {});  // its config names the pair: it serves
  auto t = tuned_served.client();
  EXPECT_FALSE(post(t, "/translate", {{"q", "The cup is cheap."}, {"source", "en"}, {"target", "de"}})["translatedText"]
                   .get<std::string>()
                   .empty());
  const auto bad = run_command(script + " --model " + shell_quote(sample_model_dir()) + " --suggestions " +
                               shell_quote(tsv) + " --out " + shell_quote(dir_->path("x")));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("--replay-src is required"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace nmt::test
