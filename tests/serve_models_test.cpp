// One server for several models, as LibreTranslate clients use it: four tiny
// models trained here (de->en, en->de, en->fr, fr->en on a generated corpus
// whose French is a word-for-word transform of its English), every direct
// and pivoted pair, /languages, source "auto" and /detect, OpenNMT-py's id,
// file translation, and the refusals a client can meet.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "tests/serve_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The toy corpus's English, word for word in (ungrammatical but
// unmistakable) French: enough for CLD2 and for a model to learn.
std::string toy_french(const std::string& english) {
  static const std::map<std::string, std::string> words = {
      {"A", "Un"},         {"the", "le"},       {"and", "et"},       {"man", "homme"},   {"woman", "femme"},
      {"dog", "chien"},    {"child", "enfant"}, {"bicycle", "vélo"}, {"street", "rue"},  {"ball", "balle"},
      {"house", "maison"}, {"sees", "voit"},    {"rides", "conduit"}, {"plays", "joue"}, {"with", "avec"},
      {"walks", "marche"}, {"to", "vers"}};
  std::istringstream in(english.substr(0, english.size() - 1));  // without the final "."
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + words.at(word);
  return out + ".";
}

class ServeModels : public ::testing::Test {
 protected:
  // ctest runs each test in a process of its own: the models are trained
  // once per trainer build, into the build folder, under a lock that makes a
  // second process wait for the first.
  static void SetUpTestSuite() {
    const auto stamp = fs::last_write_time(test::trainer_binary()).time_since_epoch().count();
    root_ = test::binary_dir() + "/test_models/serve_models-" + std::to_string(stamp);
    fs::create_directories(root_);
    const int lock = ::open((root_ + "/lock").c_str(), O_CREAT | O_RDWR, 0644);
    ASSERT_GE(lock, 0);
    ::flock(lock, LOCK_EX);
    model_dirs_.clear();
    for (const auto& [source, target] : kPairs) model_dirs_.push_back(root_ + "/models/" + source + "-" + target);
    if (!fs::exists(root_ + "/trained")) {
      train_models();
      if (!HasFatalFailure()) test::write_file(root_ + "/trained", "");  // only once all four are whole
    }
    ::flock(lock, LOCK_UN);
    ::close(lock);
  }
  static void train_models() {
    auto path = [](const std::string& name) { return root_ + "/" + name; };
    std::vector<std::string> en, de, fr;
    test::make_toy_corpus(180, en, de);
    for (const auto& e : en) fr.push_back(toy_french(e));
    const std::map<std::string, std::vector<std::string>*> corpus = {{"en", &en}, {"de", &de}, {"fr", &fr}};
    for (const auto& [lang, lines] : corpus) {
      test::write_file(path("train." + lang), test::join_lines({lines->begin(), lines->begin() + 160}));
      test::write_file(path("valid." + lang), test::join_lines({lines->begin() + 160, lines->end()}));
    }
    for (size_t m = 0; m < kPairs.size(); ++m) {
      const auto& [source, target] = kPairs[m];
      const std::string name = source + "-" + target;
      fs::remove_all(model_dirs_[m]);  // a run cut short before
      fs::create_directories(path("scratch-" + name));
      json config = test::tiny_training_config(path("scratch-" + name));  // its toy files are not used
      config["model"]["d_model"] = 32;
      config["model"]["ffn_hidden"] = 64;
      config["train"]["max_steps"] = kSteps;
      config["train"]["batch_tokens"] = 400;
      config["train"]["lr"] = 1.0;
      config["train"]["warmup_steps"] = 40;
      config["data"]["train_src"] = path("train." + source);
      config["data"]["train_tgt"] = path("train." + target);
      config["data"]["valid_src"] = path("valid." + source);
      config["data"]["valid_tgt"] = path("valid." + target);
      test::write_json(path(name + ".json"), config);
      const auto r = test::run_command(test::trainer_binary() + " --config " + path(name + ".json") + " --out " +
                                       model_dirs_[m]);
      ASSERT_EQ(r.code, 0) << r.output;
    }
  }
  static json post(httplib::Client& c, const std::string& path, const json& body, int expected = 200,
                   httplib::Headers* headers = nullptr) {
    const auto r = c.Post(path, body.dump(), "application/json");
    if (!r) {
      ADD_FAILURE() << path << ": no answer";
      return json();
    }
    EXPECT_EQ(r->status, expected) << path << " " << body.dump() << ": " << r->body;
    if (headers) *headers = r->headers;
    return json::parse(r->body);
  }
  static std::vector<std::string> cli(size_t model, const std::vector<std::string>& lines) {
    return test::cli_translations(model_dirs_.at(model), lines, "--split-sentences");
  }

  static inline const std::vector<std::pair<std::string, std::string>> kPairs = {
      {"de", "en"}, {"en", "de"}, {"en", "fr"}, {"fr", "en"}};
  static constexpr int kSteps = 250;  // enough to say something: the pivot test compares words, not empty lines
  static inline std::string root_;
  static inline std::vector<std::string> model_dirs_;
  const std::map<std::string, std::vector<std::string>> sentences_ = {
      {"en", {"A man sees the dog and the woman walks to the house.", "A child plays with the ball."}},
      {"de", {"Ein Mann sieht dem Hund und der Frau geht zu dem Haus.", "Ein Kind spielt mit dem Ball."}},
      {"fr", {"Un homme voit le chien et le femme marche vers le maison.", "Un enfant joue avec le balle."}}};
};

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
  EXPECT_EQ(file->get_header_value("Content-Disposition"), "attachment; filename=\"brief_fr.txt\"");
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
       400, "Spanish (es) is not available as a target language from German (de)"},
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

// Real clients, installed from npm as users install them (tests/clients,
// `npm install` there; scripts/test.sh does it), each with its defaults.
TEST_F(ServeModels, LibreTranslateClientLibrariesFromNpmTranslateUnchanged) {
  const std::string clients = test::source_dir() + "/tests/clients";
  if (!fs::exists(clients + "/node_modules/libretranslate-ts")) {
    GTEST_SKIP() << "the npm clients are not installed: npm install --prefix tests/clients";
  }
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  const json texts = {{"en", sentences_.at("en")[1]}, {"de", sentences_.at("de")[1]}, {"fr", sentences_.at("fr")[0]}};
  const auto r = test::run_command("node " + test::shell_quote(clients + "/libretranslate_clients.mjs") + " " +
                                   std::to_string(server.port()) + " " + test::shell_quote(texts.dump()));
  ASSERT_EQ(r.code, 0) << r.output;
  const json got = json::parse(r.output.substr(r.output.find('{')));
  auto server_says = [&](const std::string& q, const std::string& source, const std::string& target) {
    return post(c, "/translate", {{"q", q}, {"source", source}, {"target", target}}).at("translatedText");
  };
  EXPECT_EQ(got.at("translate"), server_says(texts["en"], "en", "de"));
  EXPECT_EQ(got.at("libretranslate"), server_says(texts["de"], "de", "en"));  // source "auto" by default
  EXPECT_EQ(got.at("libretranslate_ts").at("status"), 200) << got.dump();
  EXPECT_EQ(got.at("libretranslate_ts").at("translatedText"), server_says(texts["fr"], "fr", "de"));  // pivoted
  EXPECT_EQ(got.at("libretranslate_ts_detect").at("language"), "fr") << got.dump();
  EXPECT_GT(got.at("libretranslate_ts_detect").at("confidence").get<double>(), 50.0);
  EXPECT_NE(got.at("libretranslate_ts_unknown_pair").at("error").get<std::string>().find("Spanish (es) is not available"),
            std::string::npos)
      << got.dump();
}

// The page at /, as a person uses it, in a real browser (Debian's chromium
// driven by puppeteer-core from tests/clients).
TEST_F(ServeModels, ThePageTranslatesAsTheCommandLineInABrowser) {
  const std::string clients = test::source_dir() + "/tests/clients";
  if (!fs::exists(clients + "/node_modules/puppeteer-core") || !fs::exists("/usr/bin/chromium")) {
    GTEST_SKIP() << "chromium or puppeteer-core missing: apt-get install chromium; npm install --prefix tests/clients";
  }
  test::MultiModelServer server(model_dirs_, {});
  auto c = server.client();
  const auto page = c.Get("/");
  ASSERT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(page->body.find("<script>"), std::string::npos);  // no inline script
  EXPECT_EQ(c.Get("/page.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  const std::string text = sentences_.at("de")[1];
  const json case_json = {{"source", "de"}, {"target", "en"}, {"text", text}, {"expected", cli(0, {text}).at(0)},
                          {"auto_text", sentences_.at("fr")[0]}, {"auto_name", "French"}};
  const auto r = test::run_command("node " + test::shell_quote(clients + "/page_test.mjs") + " " +
                                   std::to_string(server.port()) + " " + test::shell_quote(case_json.dump()));
  ASSERT_EQ(r.code, 0) << r.output;
  const json got = json::parse(r.output.substr(r.output.rfind("\n{") + 1));
  EXPECT_EQ(got.at("foreign"), json::array()) << "the page asked another host";
  EXPECT_EQ(got.at("page_errors"), json::array());
  EXPECT_EQ(got.at("sources"), (json{"auto", "de", "en", "fr"}));
  EXPECT_EQ(got.at("typed"), case_json.at("expected"));
  // Typing a sentence at 40 ms a key sends one request once typing stops, not one per key.
  EXPECT_LE(got.at("requests_while_typing").get<int>(), 2) << text.size() << " keys";
  EXPECT_GT(got.at("aligned_words").get<int>(), 0);
  EXPECT_EQ(got.at("linked_source").size(), 1u) << got.dump();
  EXPECT_EQ(got.at("swapped"), (json{{"source", "en"}, {"target", "de"}, {"text", case_json.at("expected")}}));
  EXPECT_NE(got.at("detected").get<std::string>().find("Detected: French"), std::string::npos) << got.dump();
  EXPECT_NE(got.at("error_429").get<std::string>().find("The server is busy"), std::string::npos) << got.dump();
  EXPECT_NE(got.at("error_503").get<std::string>().find("still loading"), std::string::npos) << got.dump();
  EXPECT_NE(got.at("error_limit").get<std::string>().find("limit of 100000 characters"), std::string::npos);

  // --no-ui: no page.
  serve::ServerOptions no_ui;
  no_ui.ui = false;
  test::MultiModelServer plain(model_dirs_, no_ui);
  EXPECT_EQ(plain.client().Get("/")->status, 404);
}

}  // namespace
}  // namespace nmt
