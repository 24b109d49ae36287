// The HTTP server in-process on a loopback port: readiness, both APIs'
// shapes with the command line's translations, every kind of bad request
// answered with its status and a JSON error while the server goes on,
// metrics, CORS, and concurrent requests sharing batches.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "tests/serve_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HttpServer : public test::RandomModelDirTest {
 protected:
  void SetUp() override {
    if (!fs::exists(test::binary_dir() + "/translator")) GTEST_SKIP() << "translator executable not built";
  }
  static json body_of(const httplib::Result& r) { return json::parse(r->body); }
};

const std::vector<std::string> kLines = {"Ein Mann sieht einen Hund.", "", "Eine Frau liest ein Buch."};

TEST_F(HttpServer, ReadyOnlyOnceTheModelIsServed) {
  test::ServedModel served(model_dir(), {}, {}, /*load=*/false);
  auto c = served.client();
  EXPECT_EQ(c.Get("/health")->status, 200);
  const auto loading = c.Get("/ready");
  EXPECT_EQ(loading->status, 503);
  EXPECT_EQ(body_of(loading).at("status"), "loading");
  const auto early = c.Post("/translate", R"({"q": "Ein Hund.", "source": "de", "target": "en"})", "application/json");
  EXPECT_EQ(early->status, 503);
  EXPECT_TRUE(body_of(early).contains("error"));
  served.load_model();
  const auto ready = c.Get("/ready");
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(body_of(ready).at("source"), "de");
  EXPECT_EQ(body_of(ready).at("target"), "en");
  EXPECT_EQ(c.Get("/languages")->status, 200);
}

TEST_F(HttpServer, BothApisGiveTheCommandLinesTranslations) {
  const auto expected = test::cli_translations(model_dir(), kLines);
  ASSERT_EQ(expected.size(), kLines.size());
  test::ServedModel served(model_dir(), {}, {});
  auto c = served.client();
  // LibreTranslate, q an array: an array back, in order.
  const auto array =
      c.Post("/translate", json{{"q", kLines}, {"source", "de"}, {"target", "en"}}.dump(), "application/json");
  ASSERT_EQ(array->status, 200) << array->body;
  EXPECT_EQ(body_of(array), (json{{"translatedText", expected}}));
  // q a string holding two lines: one string of two lines.
  const auto text =
      c.Post("/translate", json{{"q", kLines[0] + "\n" + kLines[2]}, {"source", "de"}, {"target", "en"}}.dump(),
             "application/json");
  ASSERT_EQ(text->status, 200) << text->body;
  EXPECT_EQ(body_of(text).at("translatedText"), expected[0] + "\n" + expected[2]);
  // Form data, as LibreTranslate also takes.
  const auto form = c.Post("/translate", httplib::Params{{"q", kLines[2]}, {"source", "de"}, {"target", "en"}});
  ASSERT_EQ(form->status, 200) << form->body;
  EXPECT_EQ(body_of(form).at("translatedText"), expected[2]);
  // OpenNMT-py.
  const auto onmt =
      c.Post("/translator/translate", json::array({{{"src", kLines[0]}, {"id", 100}}}).dump(), "application/json");
  ASSERT_EQ(onmt->status, 200) << onmt->body;
  const json out = body_of(onmt);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0][0].at("src"), kLines[0]);
  EXPECT_EQ(out[0][0].at("tgt"), expected[0]);
  EXPECT_EQ(out[0][0].at("n_best"), 1);
  EXPECT_TRUE(out[0][0].at("pred_score").is_number());
  EXPECT_EQ(body_of(c.Get("/languages"))[0].at("targets"), json::array({"en"}));
}

// The server splits every text into sentences as the command line's
// --split-sentences does, translates a sentence longer than the model in
// pieces, and counts both on /metrics.
TEST_F(HttpServer, ParagraphsAreSplitIntoSentencesAndLongSentencesCounted) {
  const std::string paragraph = "Ein Mann sieht einen Hund.  Eine Frau liest ein Buch! Wo ist das Haus?";
  std::string long_sentence;
  while (long_sentence.size() < 5000) long_sentence += "ein Mann sieht dem Hund und ";
  long_sentence.pop_back();
  const auto expected = test::cli_translations(model_dir(), {paragraph, long_sentence}, "--split-sentences");
  ASSERT_EQ(expected.size(), 2u);
  test::ServedModel served(model_dir(), {}, {});
  auto c = served.client();
  const auto r = c.Post("/translate", json{{"q", {paragraph, long_sentence}}, {"source", "de"}, {"target", "en"}}.dump(),
                        "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r).at("translatedText"), json(expected));
  const std::string metrics = c.Get("/metrics")->body;
  EXPECT_NE(metrics.find("\nnmt_request_sentences_total 4\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nnmt_long_sentences_total 1\n"), std::string::npos) << metrics;
}

// format "html": the same translation as the command line's --format html,
// markup kept, while plain requests go on beside it.
TEST_F(HttpServer, HtmlRequestsKeepTheirMarkupAsTheCommandLineDoes) {
  const std::vector<std::string> pages = {"<p>Ein <b>Mann</b> sieht einen Hund. Eine Frau liest.</p>",
                                          "<ul><li>Ein Hund.</li><li title=\"Eine Frau\">Ein <a href=x>Kind</a>.</li></ul>"};
  const auto expected = test::cli_translations(model_dir(), pages, "--format html");
  ASSERT_EQ(expected.size(), 2u);
  test::ServedModel served(model_dir(), {}, {});
  std::vector<std::thread> plain;
  for (int i = 0; i < 4; ++i) {
    plain.emplace_back([&served] {
      auto c = served.client();
      const auto r = c.Post("/translate", R"({"q": "Ein Hund.", "source": "de", "target": "en"})", "application/json");
      EXPECT_EQ(r->status, 200);
    });
  }
  auto c = served.client();
  const auto r = c.Post("/translate", json{{"q", pages}, {"source", "de"}, {"target", "en"}, {"format", "html"}}.dump(),
                        "application/json");
  for (auto& t : plain) t.join();
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r).at("translatedText"), json(expected));
}

TEST_F(HttpServer, NBestAndAlternativesAreTheCommandLinesNBest) {
  // The command line's n-best lines: INDEX ||| HYPOTHESIS ||| SCORE.
  const auto lines = test::cli_translations(model_dir(), {kLines[0]}, "--beam 3 --nbest 3");
  ASSERT_EQ(lines.size(), 3u);
  auto hypothesis = [](const std::string& line) {
    const size_t a = line.find(" ||| ") + 5, b = line.rfind(" ||| ");
    return line.substr(a, b - a);
  };
  decode::TranslatorOptions decoding;
  decoding.search.beam = 3;
  decoding.search.nbest = 2;
  test::ServedModel served(model_dir(), {}, decoding);
  auto c = served.client();
  const auto onmt = c.Post("/translator/translate", json::array({{{"src", kLines[0]}}}).dump(), "application/json");
  ASSERT_EQ(onmt->status, 200) << onmt->body;
  const json out = body_of(onmt);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0][0].at("tgt"), hypothesis(lines[0]));
  EXPECT_EQ(out[1][0].at("tgt"), hypothesis(lines[1]));
  EXPECT_GE(out[0][0].at("pred_score").get<double>(), out[1][0].at("pred_score").get<double>());
  const auto libre =
      c.Post("/translate", json{{"q", kLines[0]}, {"source", "de"}, {"target", "en"}, {"alternatives", 3}}.dump(),
             "application/json");
  ASSERT_EQ(libre->status, 200) << libre->body;
  EXPECT_EQ(body_of(libre).at("translatedText"), hypothesis(lines[0]));
  // More than the server's --nbest 2 gives: as many as the beam holds, the best unchanged.
  EXPECT_EQ(body_of(libre).at("alternatives"), json::array({hypothesis(lines[1]), hypothesis(lines[2])}));
  const auto one = c.Post("/translate",
                          json{{"q", kLines[0]}, {"source", "de"}, {"target", "en"}, {"alternatives", 1}}.dump(),
                          "application/json");
  EXPECT_EQ(body_of(one).at("alternatives"), json::array({hypothesis(lines[1])}));
}

// OpenNMT-py requests with decoding options of their own: the command line's
// translation with the same flags, a target prefix per element, and bad
// values refused with 400 naming the field.
TEST_F(HttpServer, OpenNmtRequestsCarryDecodingOptions) {
  const auto greedy = test::cli_translations(model_dir(), {kLines[0]}, "--beam 1 --no-repeat-ngram-size 2");
  const auto sampled = test::cli_translations(model_dir(), {kLines[0]}, "--beam 1 --sampling-topk 0 --seed 5");
  ASSERT_EQ(greedy.size(), 1u);
  test::ServedModel served(model_dir(), {}, {});
  auto c = served.client();
  const auto post = [&c](const json& body) { return c.Post("/translator/translate", body.dump(), "application/json"); };
  const auto g = post(json::array({{{"src", kLines[0]}, {"beam_size", 1}, {"no_repeat_ngram_size", 2}}}));
  ASSERT_EQ(g->status, 200) << g->body;
  EXPECT_EQ(body_of(g)[0][0].at("tgt"), greedy[0]);
  const auto s = post(json::array({{{"src", kLines[0]}, {"beam_size", 1}, {"sampling_topk", 0}, {"seed", 5}}}));
  ASSERT_EQ(s->status, 200) << s->body;
  EXPECT_EQ(body_of(s)[0][0].at("tgt"), sampled[0]);
  const auto n = post(json::array({{{"src", kLines[0]}, {"n_best", 3}}, {{"src", kLines[2]}, {"target_prefix", "man"}}}));
  ASSERT_EQ(n->status, 200) << n->body;
  ASSERT_EQ(body_of(n).size(), 3u) << "one list per rank";
  EXPECT_EQ(body_of(n)[0][1].at("tgt").get<std::string>().rfind("man", 0), 0u) << n->body;
  std::string long_prefix;  // more tokens than the model writes
  for (int i = 0; i < 100; ++i) long_prefix += "man ";
  for (const json& bad : {json::array({{{"src", "x"}, {"beam_size", "wide"}}}),
                          json::array({{{"src", "x"}, {"beam_size", 64}}}),
                          json::array({{{"src", "x"}, {"sampling_topp", 2.0}}}),
                          json::array({{{"src", "x"}, {"seed", -1}}}),
                          json::array({{{"src", "x"}, {"target_prefix", 3}}}),
                          json::array({{{"src", "x"}, {"target_prefix", long_prefix}}}),
                          json::array({{{"src", "x"}, {"beam_size", 2}}, {{"src", "y"}, {"beam_size", 3}}})}) {
    const auto r = post(bad);
    EXPECT_EQ(r->status, 400) << bad.dump();
    EXPECT_TRUE(body_of(r).contains("error")) << r->body;
  }
  const auto named = post(json::array({{{"src", "x"}, {"sampling_topp", 2.0}}}));
  EXPECT_NE(body_of(named).at("error").get<std::string>().find("sampling-topp"), std::string::npos) << named->body;
}

struct BadRequest {
  std::string what, path, body, content_type;
  httplib::Headers headers;
  int status;
};

TEST_F(HttpServer, BadRequestsGetTheirStatusAndAJsonErrorAndTheServerGoesOn) {
  serve::ServerOptions options;
  options.access.api_key = "s3cret";
  options.max_body_bytes = 2000;
  options.limits.max_sentences = 3;
  test::ServedModel served(model_dir(), options, {});
  const httplib::Headers key = {{"Authorization", "Bearer s3cret"}};
  const std::string good = R"({"q": "Ein Hund.", "source": "de", "target": "en", "api_key": "s3cret"})";
  const std::vector<BadRequest> cases = {
      {"no body", "/translate", "", "application/json", key, 400},
      {"malformed JSON", "/translate", R"({"q": "Ein Hund.", )", "application/json", key, 400},
      {"a number no double holds", "/translate", R"({"q": "Ein Hund.", "alternatives": 6e4748})", "application/json",
       key, 400},
      {"q of the wrong type", "/translate", R"({"q": 3, "source": "de", "target": "en"})", "application/json", key,
       400},
      {"missing target", "/translate", R"({"q": "Ein Hund.", "source": "de"})", "application/json", key, 400},
      {"another language pair", "/translate", R"({"q": "Un chien.", "source": "fr", "target": "en"})",
       "application/json", key, 400},
      {"unknown format", "/translate", R"({"q": "<b>x</b>", "source": "de", "target": "en", "format": "xml"})",
       "application/json", key, 400},
      {"oversize body", "/translate", std::string(3000, ' '), "application/json", key, 413},
      {"too many sentences", "/translate", R"({"q": "a\nb\nc\nd", "source": "de", "target": "en"})", "application/json",
       key, 400},
      {"invalid UTF-8 in JSON", "/translate", "{\"q\": \"\xff\", \"source\": \"de\", \"target\": \"en\"}",
       "application/json", key, 400},
      {"invalid UTF-8 in a form", "/translate", "q=%FF&source=de&target=en", "application/x-www-form-urlencoded", key,
       400},
      {"OpenNMT body not an array", "/translator/translate", R"({"src": "x"})", "application/json", key, 400},
      {"unknown route", "/translate/now", good, "application/json", key, 404},
      {"wrong key", "/translate", good, "application/json", {{"Authorization", "Bearer guess"}}, 403},
      {"wrong key in the body",
       "/translate",
       R"({"q": "x", "source": "de", "target": "en", "api_key": "guess"})",
       "application/json",
       {},
       403},
      {"no key", "/translator/translate", R"([{"src": "x"}])", "application/json", {}, 400},
  };
  for (const auto& bad : cases) {
    auto c = served.client();  // a refused body may close its connection: one client per case
    const auto r = c.Post(bad.path, bad.headers, bad.body, bad.content_type);
    ASSERT_TRUE(r) << bad.what;
    EXPECT_EQ(r->status, bad.status) << bad.what << ": " << r->body;
    ASSERT_NO_THROW(body_of(r)) << bad.what << ": " << r->body;
    EXPECT_TRUE(body_of(r).at("error").is_string()) << bad.what;
    EXPECT_EQ(served.client().Get("/health")->status, 200) << "after " << bad.what;
  }
  // A chunked body (no Content-Length) over the limit is cut off as it arrives.
  auto chunking = served.client();
  const auto chunked = chunking.Post(
      "/translate", key,
      [](size_t offset, httplib::DataSink& sink) {
        const std::string chunk(500, ' ');
        sink.write(chunk.data(), chunk.size());
        if (offset > 10000) sink.done();
        return true;
      },
      "application/json");
  if (chunked) {  // else the server closed the connection first
    EXPECT_EQ(chunked->status, 413);
  }
  const auto ok = served.client().Post("/translate", good, "application/json");
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_TRUE(body_of(ok).at("translatedText").is_string());
}

TEST_F(HttpServer, MetricsCorsAndPreflight) {
  serve::ServerOptions options;
  options.cors_origin = "https://example.org";
  test::ServedModel served(model_dir(), options, {});
  auto c = served.client();
  const auto r =
      c.Post("/translate", json{{"q", kLines}, {"source", "de"}, {"target", "en"}}.dump(), "application/json");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Access-Control-Allow-Origin"), "https://example.org");
  const auto preflight = c.Options("/translate");
  EXPECT_EQ(preflight->status, 204);
  EXPECT_NE(preflight->get_header_value("Access-Control-Allow-Methods").find("POST"), std::string::npos);
  c.Get("/nowhere");
  const auto metrics = c.Get("/metrics");
  ASSERT_EQ(metrics->status, 200);
  const std::string& text = metrics->body;
  EXPECT_NE(text.find("nmt_requests_total{route=\"/translate\",code=\"200\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nmt_requests_total{route=\"other\",code=\"404\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nmt_sentences_total 2\n"), std::string::npos) << text;  // the empty line needs no model
  EXPECT_NE(text.find("nmt_request_duration_seconds_count"), std::string::npos) << text;
  EXPECT_NE(text.find("nmt_round_sentences_bucket{le=\"2\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nmt_ready 1\n"), std::string::npos) << text;
}

TEST_F(HttpServer, ConcurrentRequestsShareRoundsAndEachGetsItsOwnLine) {
  std::vector<std::string> lines;
  for (int i = 0; i < 12; ++i) lines.push_back("Ein Mann sieht " + std::to_string(i) + " Hunde.");
  const auto expected = test::cli_translations(model_dir(), lines);
  ASSERT_EQ(expected.size(), lines.size());
  serve::ServerOptions options;
  options.batching.max_wait_ms = 500;  // long enough for every client to join the first round
  test::ServedModel served(model_dir(), options, {});
  std::vector<std::string> got(lines.size());
  std::vector<std::thread> clients;
  for (size_t i = 0; i < lines.size(); ++i) {
    clients.emplace_back([&, i] {
      auto c = served.client();
      const auto r = c.Post("/translator/translate", json::array({{{"src", lines[i]}}}).dump(), "application/json");
      if (r && r->status == 200) got[i] = json::parse(r->body)[0][0].at("tgt");
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(got, expected);
  const std::string metrics = served.client().Get("/metrics")->body;
  const size_t at = metrics.find("\nnmt_rounds_total ");  // the sample line, not its # HELP
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_LT(std::stoi(metrics.substr(at + 18)), static_cast<int>(lines.size())) << metrics;
}

}  // namespace
}  // namespace nmt
