// Corrections through the server on the trained sample model: POST /suggest
// stores them (--suggestions DB) and /translate answers each stored
// sentence with its correction from then on, in text and HTML, alone or
// among other sentences; the store outlives the server; without a store
// /suggest is refused, and bad suggestions are 400s.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
  EXPECT_NE(refused["error"].get<std::string>().find("--suggestions"), std::string::npos);
}

}  // namespace
}  // namespace nmt::test
