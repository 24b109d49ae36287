// What people and programs use against the server, installed as they
// install them: LibreTranslate client libraries from npm, and the server's
// page in Debian's chromium (puppeteer-core from npm), both in tests/clients.
#include "tests/document_test_util.h"
#include "tests/serve_models_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ServeModels;

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
  EXPECT_NE(got.at("libretranslate_ts_unknown_pair").at("error").get<std::string>().find("es is not supported"),
            std::string::npos)
      << got.dump();
}

// The page's wait after a key, as a function of the keys' times (node only).
TEST(ServePage, TypingPauseFollowsTheTypistsRhythm) {
  const std::string script = test::source_dir() + "/tests/clients/typing_pause_test.mjs";
  if (test::run_command("node --version").code != 0) GTEST_SKIP() << "node missing: apt-get install nodejs";
  const auto r = test::run_command("node " + test::shell_quote(script));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "ok\n");
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
  // A document of kParagraphs paragraphs, translated in parts of 32: the page, asking every 500 ms,
  // shows how far it has come. 600 were at times translated between two of its requests (2 of 3 runs
  // on a 2-core Intel Xeon at f67bcd4), and the page went from "Translating" to the link directly.
  constexpr int kParagraphs = 2400;
  const std::string of_all = " of " + std::to_string(kParagraphs) + " parts";
  std::string paragraphs;
  for (int i = 0; i < kParagraphs; ++i) paragraphs += "<w:p><w:r><w:t>" + sentences_.at("de")[i % sentences_.at("de").size()] + "</w:t></w:r></w:p>";
  test::TempDir files;
  std::ofstream(files.path("brief.docx"), std::ios::binary) << test::docx_of(paragraphs);
  const json case_json = {{"source", "de"}, {"target", "en"}, {"text", text}, {"expected", cli(0, {text}).at(0)},
                          {"auto_text", sentences_.at("fr")[0]}, {"auto_name", "French"},
                          {"file", files.path("brief.docx")}};
  const auto r = test::run_command("node " + test::shell_quote(clients + "/page_test.mjs") + " " +
                                   std::to_string(server.port()) + " " + test::shell_quote(case_json.dump()));
  ASSERT_EQ(r.code, 0) << r.output;
  const json got = json::parse(r.output.substr(r.output.rfind("\n{") + 1));
  EXPECT_EQ(got.at("foreign"), json::array()) << "the page asked another host";
  EXPECT_EQ(got.at("page_errors"), json::array());
  EXPECT_EQ(got.at("sources"), (json{"auto", "de", "en", "fr"}));
  EXPECT_EQ(got.at("typed"), case_json.at("expected"));
  // Typing a sentence at 40 ms a key sends one request once typing stops, not one per key,
  // and sooner than a slow typist's wait (serve/page/typing_pause.js: 150 ms here, 400 ms for 250 ms a key).
  EXPECT_LE(got.at("requests_while_typing").get<int>(), 2) << text.size() << " keys";
  EXPECT_LT(got.at("typed_pause_ms").get<double>(), 350) << got.dump();
  EXPECT_LE(got.at("slow_requests_while_typing").get<int>(), 1) << got.dump();
  EXPECT_GE(got.at("slow_pause_ms").get<double>(), 350) << got.dump();
  EXPECT_LT(got.at("paste_pause_ms").get<double>(), 200) << got.dump();  // a paste is asked for at once, not after 400 ms
  EXPECT_GT(got.at("aligned_words").get<int>(), 0);
  EXPECT_EQ(got.at("linked_source").size(), 1u) << got.dump();
  EXPECT_EQ(got.at("swapped"), (json{{"source", "en"}, {"target", "de"}, {"text", case_json.at("expected")}}));
  EXPECT_NE(got.at("detected").get<std::string>().find("Detected: French"), std::string::npos) << got.dump();
  EXPECT_NE(got.at("error_429").get<std::string>().find("The server is busy"), std::string::npos) << got.dump();
  EXPECT_NE(got.at("error_503").get<std::string>().find("still loading"), std::string::npos) << got.dump();
  EXPECT_NE(got.at("error_limit").get<std::string>().find("limit of 100000 characters"), std::string::npos);
  EXPECT_EQ(got.at("file_link"), "Download the translation of brief.docx");
  EXPECT_NE(got.at("file_href").get<std::string>().find("brief_en.docx"), std::string::npos) << got.dump();
  bool progressed = false;  // a line "... 64 of 2400 parts" between the first and the link
  for (const auto& seen : got.at("file_seen")) {
    const std::string line = seen.get<std::string>();
    progressed = progressed || (line.find(of_all) != std::string::npos &&
                                line.find("… " + std::to_string(kParagraphs) + " of") == std::string::npos);
  }
  EXPECT_TRUE(progressed) << got.dump();

  // --no-ui: no page.
  serve::ServerOptions no_ui;
  no_ui.ui = false;
  test::MultiModelServer plain(model_dirs_, no_ui);
  EXPECT_EQ(plain.client().Get("/")->status, 404);
}


}  // namespace
}  // namespace nmt
