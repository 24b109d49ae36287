// One server for several models, as LibreTranslate clients use it (the
// four tiny models of tests/serve_models_test_util.h): every direct and
// pivoted pair, /languages, source "auto" and /detect, OpenNMT-py's id, word
// alignment, file translation, and the refusals a client can meet.
#include <set>

#include "tests/serve_models_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ServeModels;

TEST_F(ServeModels, LanguagesListExactlyWhatCanBeReached) {
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  const auto r = c.Get("/languages");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body),
            json::parse(R"([{"code": "de", "name": "German", "targets": ["en", "fr"]},
                            {"code": "en", "name": "English", "targets": ["de", "fr"]},
                            {"code": "fr", "name": "French", "targets": ["de", "en"]}])"));
  const json models = json::parse(c.Get("/translator/models")->body);
  ASSERT_EQ(models.size(), 4u);
  EXPECT_EQ(models[2].at("model_id"), 102);
  EXPECT_EQ(models[2].at("source"), "en");
  EXPECT_EQ(models[2].at("target"), "fr");
  EXPECT_EQ(json::parse(c.Get("/ready")->body).at("models").size(), 4u);
}

TEST_F(ServeModels, DirectPairsTranslateAsTheirModelAlone) {
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  for (size_t m = 0; m < kPairs.size(); ++m) {
    const auto& [source, target] = kPairs[m];
    httplib::Headers headers;
    const json got = post(c, "/translate", {{"q", sentences_.at(source)}, {"source", source}, {"target", target}},
                          200, &headers);
    EXPECT_EQ(got.at("translatedText").get<std::vector<std::string>>(), cli(m, sentences_.at(source)))
        << source << "->" << target;
    EXPECT_EQ(headers.count("X-Translation-Pivot"), 0u);
    EXPECT_FALSE(got.at("translatedText").at(0).get<std::string>().empty()) << "a model that says nothing proves little";
    // OpenNMT-py's shape: the id picks the same model.
    json onmt = json::array();
    for (const auto& s : sentences_.at(source)) onmt.push_back({{"src", s}, {"id", 100 + m}});
    const json ranked = post(c, "/translator/translate", onmt);
    EXPECT_EQ(ranked.at(0).at(1).at("tgt"), got.at("translatedText").at(1));
  }
}

// "alignment": true (ours; the page asks for it) links each translated word
// to the source word it attended to most, in UTF-16 offsets.
TEST_F(ServeModels, AlignmentLinksTranslatedWordsToSourceWords) {
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  const std::string text = sentences_.at("de")[0] + "\n" + sentences_.at("de")[1];  // two lines
  const json got = post(c, "/translate", {{"q", text}, {"source", "de"}, {"target", "en"}, {"alignment", true}});
  const std::string translation = got.at("translatedText");
  const json plain = post(c, "/translate", {{"q", text}, {"source", "de"}, {"target", "en"}});
  EXPECT_EQ(plain.at("translatedText"), translation);  // asking for links changes nothing else
  EXPECT_FALSE(plain.contains("alignment"));
  const json& links = got.at("alignment");
  ASSERT_GE(links.size(), 4u) << got.dump();
  size_t last_target = 0;
  std::set<std::string> source_words;
  std::istringstream words(text);
  for (std::string w; words >> w;) source_words.insert(w);
  for (const auto& l : links) {  // ASCII texts: UTF-16 offsets are byte offsets
    const size_t tb = l[0], te = l[1], sb = l[2], se = l[3];
    ASSERT_LT(tb, te);
    ASSERT_LE(te, translation.size());
    EXPECT_GE(tb, last_target);  // in target order, no overlap
    last_target = te;
    EXPECT_EQ(translation.substr(tb, te - tb).find(' '), std::string::npos) << translation.substr(tb, te - tb);
    ASSERT_LT(sb, se);
    ASSERT_LE(se, text.size());
    EXPECT_TRUE(source_words.count(text.substr(sb, se - sb))) << text.substr(sb, se - sb);
  }
  // Links of the second line point into the second line of both texts.
  const json& end = links.back();
  EXPECT_GT(end[0].get<size_t>(), translation.find('\n'));
  EXPECT_GT(end[2].get<size_t>(), text.find('\n'));
  // An array of texts: one list each; a pivoted pair has none.
  const json pivot = post(c, "/translate", {{"q", {text}}, {"source", "de"}, {"target", "fr"}, {"alignment", true}});
  EXPECT_EQ(pivot.at("alignment"), json::array({json::array()}));
}

TEST_F(ServeModels, PivotedPairsEqualTheTwoLegsOneAfterTheOther) {
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  // de->fr: de->en (model 0), then en->fr (model 2); fr->de: fr->en (3), then en->de (1).
  const std::vector<std::tuple<std::string, std::string, size_t, size_t>> pivots = {{"de", "fr", 0, 2},
                                                                                   {"fr", "de", 3, 1}};
  for (const auto& [source, target, first, second] : pivots) {
    const auto expected = cli(second, cli(first, sentences_.at(source)));
    httplib::Headers headers;
    const json got = post(c, "/translate", {{"q", sentences_.at(source)}, {"source", source}, {"target", target}},
                          200, &headers);
    EXPECT_EQ(got.at("translatedText").get<std::vector<std::string>>(), expected) << source << "->" << target;
    EXPECT_EQ(headers.find("X-Translation-Pivot")->second, "en");
    // The same through the server's own legs, one request after the other.
    const json leg = post(c, "/translate", {{"q", sentences_.at(source)}, {"source", source}, {"target", "en"}});
    const json both = post(c, "/translate", {{"q", leg.at("translatedText")}, {"source", "en"}, {"target", target}});
    EXPECT_EQ(both.at("translatedText"), got.at("translatedText"));
  }
}

TEST_F(ServeModels, AutoDetectsEachSourceLanguageWithItsConfidence) {
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  for (const auto& [language, lines] : sentences_) {
    const std::string target = language == "en" ? "de" : "en";
    for (const auto& line : lines) {
      const json got = post(c, "/translate", {{"q", line}, {"source", "auto"}, {"target", target}});
      EXPECT_EQ(got.at("detectedLanguage").at("language"), language) << line;
      EXPECT_GT(got.at("detectedLanguage").at("confidence").get<double>(), 50.0) << line;
      const json known = post(c, "/translate", {{"q", line}, {"source", language}, {"target", target}});
      EXPECT_EQ(got.at("translatedText"), known.at("translatedText"));
      const json detected = post(c, "/detect", {{"q", line}});
      EXPECT_EQ(detected.at(0).at("language"), language);
      EXPECT_EQ(detected.at(0).at("confidence"), got.at("detectedLanguage").at("confidence"));
    }
  }
  // An array of texts in two languages: each text its own language.
  const json mixed = post(c, "/translate",
                          {{"q", {sentences_.at("de")[0], sentences_.at("fr")[0]}}, {"source", "auto"}, {"target", "en"}});
  EXPECT_EQ(mixed.at("detectedLanguage").at(0).at("language"), "de");
  EXPECT_EQ(mixed.at("detectedLanguage").at(1).at("language"), "fr");
  EXPECT_EQ(mixed.at("translatedText").at(1), cli(3, {sentences_.at("fr")[0]}).at(0));
  // A text already in the target language comes back as it is.
  const json same = post(c, "/translate", {{"q", sentences_.at("de")[0]}, {"source", "auto"}, {"target", "de"}});
  EXPECT_EQ(same.at("translatedText"), sentences_.at("de")[0]);
  EXPECT_EQ(same.at("detectedLanguage").at("language"), "de");
  // HTML: the language of its text, not of its markup.
  const json html = post(c, "/translate",
                         {{"q", "<p class=\"the house\">" + sentences_.at("fr")[0] + "</p>"}, {"source", "auto"},
                          {"target", "en"}, {"format", "html"}});
  EXPECT_EQ(html.at("detectedLanguage").at("language"), "fr");
  EXPECT_EQ(html.at("translatedText").get<std::string>().rfind("<p class=\"the house\">", 0), 0u);
  // Too short to tell, or another language: English with confidence 0, as LibreTranslate answers.
  for (const char* unsure : {"ok", "El perro come la manzana roja en la casa grande."}) {
    const json d = post(c, "/detect", {{"q", unsure}});
    EXPECT_EQ(d, json::parse(R"([{"confidence": 0.0, "language": "en"}])")) << unsure;
  }
}

TEST_F(ServeModels, FilesTranslateAsTheirTextWithTheMarkupKept) {
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  const std::string text = sentences_.at("de")[0] + "\n" + sentences_.at("de")[1] + "\n";
  const json direct = post(c, "/translate", {{"q", text}, {"source", "de"}, {"target", "fr"}});
  const httplib::MultipartFormDataItems form = {
      {"file", text, "brief.txt", "text/plain"}, {"source", "de", "", ""}, {"target", "fr", "", ""}};
  const auto r = c.Post("/translate_file", form);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string url = json::parse(r->body).at("translatedFileUrl");
  const std::string prefix = "http://127.0.0.1:" + std::to_string(server.port()) + "/download_file/";
  ASSERT_EQ(url.rfind(prefix, 0), 0u) << url;
  const auto file = c.Get(url.substr(url.find("/download_file/")));
  ASSERT_EQ(file->status, 200);
  EXPECT_EQ(file->body, direct.at("translatedText"));
  EXPECT_EQ(file->get_header_value("Content-Disposition"),
            "attachment; filename=\"brief_fr.txt\"; filename*=UTF-8''brief_fr.txt");
  EXPECT_EQ(file->get_header_value("Content-Security-Policy"), "sandbox");  // a page never runs in our origin
  // A file of more lines than a queue takes at once goes through a few hundred at a time.
  std::string long_text;
  std::vector<std::string> long_lines;
  for (int i = 0; i < 700; ++i) long_lines.push_back(sentences_.at("de")[i % 2]);
  for (const auto& l : long_lines) long_text += l + "\n";
  serve::ServerOptions small_queue;
  small_queue.batching.queue_sentences = 300;
  small_queue.limits.max_sentences = 300;
  test::MultiModelServer queued(model_dirs_, small_queue);
  auto q = queued.client();
  const auto big = q.Post("/translate_file", httplib::MultipartFormDataItems{{"file", long_text, "long.txt", "text/plain"},
                                                                          {"source", "de", "", ""},
                                                                          {"target", "en", "", ""}});
  ASSERT_EQ(big->status, 200) << big->body;
  const std::string big_url = json::parse(big->body).at("translatedFileUrl");
  const std::string big_file = q.Get(big_url.substr(big_url.find("/download_file/")))->body;
  const json two = post(q, "/translate", {{"q", sentences_.at("de")}, {"source", "de"}, {"target", "en"}});
  std::string expected_file;
  for (int i = 0; i < 700; ++i) expected_file += two.at("translatedText").at(i % 2).get<std::string>() + "\n";
  EXPECT_EQ(big_file, expected_file);
  // HTML keeps its markup.
  const std::string page = "<html><body><p>" + sentences_.at("en")[1] + "</p></body></html>";
  const auto h = c.Post("/translate_file", httplib::MultipartFormDataItems{{"file", page, "page.html", "text/html"},
                                                                         {"source", "en", "", ""},
                                                                         {"target", "de", "", ""}});
  ASSERT_EQ(h->status, 200) << h->body;
  const std::string html_url = json::parse(h->body).at("translatedFileUrl");
  const auto translated = c.Get(html_url.substr(html_url.find("/download_file/")));
  EXPECT_EQ(translated->body.rfind("<html><body><p>", 0), 0u) << translated->body;
}

TEST_F(ServeModels, BadRequestsAreClearJsonErrorsAndNothingIsWrittenOutsideItsFolder) {
  test::TempDir d;
  test::write_file(d.path("keys.txt"), "good-key 1000\nbusy-key 2\n");
  serve::ServerOptions options;
  options.access.api_keys_file = d.path("keys.txt");
  options.access.require_api_key = true;
  options.max_body_bytes = 4096;
  test::MultiModelServer server(model_dirs_, options);
  const fs::path tmp = fs::temp_directory_path();
  struct Case {
    std::string what, path;
    httplib::MultipartFormDataItems form;
    json body;
    int status;
    std::string says;
  };
  auto file = [](const std::string& name, const std::string& content) {
    return httplib::MultipartFormDataItems{{"file", content, name, "text/plain"},
                                           {"source", "de", "", ""},
                                           {"target", "en", "", ""},
                                           {"api_key", "good-key", "", ""}};
  };
  const std::string escape = "nmt-escape-" + std::to_string(::getpid()) + ".txt";
  const std::vector<Case> cases = {
      {"unknown pair", "/translate", {}, {{"q", "x"}, {"source", "de"}, {"target", "es"}, {"api_key", "good-key"}},
       400, "es is not supported"},  // LibreTranslate's words for a language no model has
      {"unknown source", "/translate", {}, {{"q", "x"}, {"source", "xx"}, {"target", "en"}, {"api_key", "good-key"}},
       400, "xx is not supported"},
      {"wrong key", "/translate", {}, {{"q", "x"}, {"source", "de"}, {"target", "en"}, {"api_key", "guess"}}, 403,
       "Invalid API key"},
      {"empty key where one is required", "/translate", {}, {{"q", "x"}, {"source", "de"}, {"target", "en"}, {"api_key", ""}},
       400, "Please contact the server operator to get an API key"},
      {"detection of empty text", "/detect", {}, {{"q", ""}, {"api_key", "good-key"}}, 400,
       "Invalid request: missing q parameter"},
      {"an upload of another type", "/translate_file", file("report.pdf", "%PDF-1.4"), {}, 400,
       "file format not supported"},
      {"an upload too large", "/translate_file", file("big.txt", std::string(20000, 'a')), {}, 413, "limit of 4096"},
      {"a name with path characters", "/translate_file", file("../../" + escape, "Ein Hund."), {}, 400,
       "path or control characters"},
      {"a name that is a path", "/translate_file", file(tmp.string() + "/" + escape, "Ein Hund."), {}, 400,
       "path or control characters"},
  };
  for (const auto& bad : cases) {
    auto c = server.client();
    const auto r = bad.form.empty() ? c.Post(bad.path, bad.body.dump(), "application/json") : c.Post(bad.path, bad.form);
    ASSERT_TRUE(r) << bad.what;
    EXPECT_EQ(r->status, bad.status) << bad.what << ": " << r->body;
    const json error = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(error.is_object() && error.contains("error")) << bad.what << ": " << r->body;
    EXPECT_NE(error.at("error").get<std::string>().find(bad.says), std::string::npos) << bad.what << ": " << r->body;
    EXPECT_EQ(server.client().Get("/health")->status, 200) << "after " << bad.what;
  }
  // OpenNMT-py: an unknown model id (the key as a bearer token).
  auto c = server.client();
  const auto onmt = c.Post("/translator/translate", {{"Authorization", "Bearer good-key"}},
                           R"([{"src": "Ein Hund.", "id": 7}])", "application/json");
  EXPECT_EQ(onmt->status, 400);
  EXPECT_NE(onmt->body.find("No model with id 7; this server's models are 100 to 103"), std::string::npos) << onmt->body;
  // A key over its limit gets 429 with LibreTranslate's message; another key is served.
  const json busy = {{"q", sentences_.at("de")[1]}, {"source", "de"}, {"target", "en"}, {"api_key", "busy-key"}};
  EXPECT_EQ(post(c, "/translate", busy).count("translatedText"), 1u);
  EXPECT_EQ(post(c, "/translate", busy).count("translatedText"), 1u);
  EXPECT_EQ(post(c, "/translate", busy, 429).at("error"), "Slowdown: 2 per 1 minute");
  json other = busy;
  other["api_key"] = "good-key";
  EXPECT_EQ(post(c, "/translate", other).count("translatedText"), 1u);
  EXPECT_FALSE(fs::exists(tmp / escape));
  EXPECT_FALSE(fs::exists(fs::current_path() / escape));
  // Python's urllib, which sends the whole body before it reads: the 413 arrives as JSON, not a broken pipe.
  test::write_file(d.path("urllib.py"), R"(import json, sys, urllib.request as u
req = u.Request("http://127.0.0.1:" + sys.argv[1] + "/translate", data=b"x" * 3000000,
                headers={"Content-Type": "application/json"})
try:
    u.urlopen(req)
except u.HTTPError as e:
    print(e.code, json.load(e)["error"])
)");
  const auto urllib = test::run_command("python3 " + d.path("urllib.py") + " " + std::to_string(server.port()));
  EXPECT_EQ(urllib.output.rfind("413 The request body is larger than this server's limit of 4096 bytes.", 0), 0u)
      << urllib.output;
}


}  // namespace
}  // namespace nmt
