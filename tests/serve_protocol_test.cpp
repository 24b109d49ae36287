// LibreTranslate's protocol to the letter, route by route, as its own
// sources and tests have it (docs/serving.md lists what we keep different
// and why): a wrong method is 405 with Allow, /health's body, /spec
// describing every route we answer, and the exact words of its errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "serve/http_routes.h"
#include "tests/serve_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class Protocol : public test::RandomModelDirTest {
 protected:
  void SetUp() override {
    if (!fs::exists(test::binary_dir() + "/translator")) GTEST_SKIP() << "translator executable not built";
  }
};

const std::vector<std::string> kPostRoutes = {"/translate", "/detect", "/translate_file", "/suggest",
                                              "/translator/translate"};
const std::vector<std::string> kGetRoutes = {"/languages", "/frontend/settings", "/health", "/ready",
                                             "/metrics",   "/spec",              "/translator/models"};

TEST_F(Protocol, AWrongMethodIs405WithTheMethodsThePathTakes) {
  test::ServedModel served(model_dir(), {}, {});
  auto c = served.client();
  for (const auto& path : kPostRoutes) {
    for (const auto& r : {c.Get(path), c.Put(path, "", "text/plain"), c.Delete(path)}) {
      ASSERT_TRUE(r) << path;
      EXPECT_EQ(r->status, 405) << path;
      EXPECT_EQ(r->get_header_value("Allow"), "POST, OPTIONS") << path;
      EXPECT_EQ(json::parse(r->body).at("error"), "The method is not allowed for the requested URL.") << path;
    }
  }
  for (const auto& path : kGetRoutes) {
    const auto r = c.Post(path, "{}", "application/json");
    EXPECT_EQ(r->status, 405) << path;
    EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD, OPTIONS") << path;
  }
  EXPECT_EQ(c.Post("/download_file/x.txt", "", "text/plain")->status, 405);
  EXPECT_EQ(c.Post("/", "", "text/plain")->status, 405);  // the page
  EXPECT_EQ(c.Get("/nowhere")->status, 404);
  EXPECT_EQ(c.Post("/nowhere", "", "text/plain")->status, 404);
  const auto options = c.Options("/translate");
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->get_header_value("Allow"), "POST, OPTIONS");
  EXPECT_EQ(c.Head("/languages")->status, 200);
}

TEST_F(Protocol, HealthAnswersLibreTranslatesBodyAndSpecDescribesEveryRoute) {
  test::ServedModel served(model_dir(), {}, {});
  auto c = served.client();
  const auto health = c.Get("/health");
  ASSERT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body), (json{{"status", "ok"}}));
  const auto r = c.Get("/spec");
  ASSERT_EQ(r->status, 200);
  const json spec = json::parse(r->body);
  EXPECT_EQ(spec.at("swagger"), "2.0");
  EXPECT_EQ(spec.at("basePath"), "/");
  for (const char* name : {"detections", "error-response", "error-slow-down", "frontend-settings", "health-response",
                           "languages", "suggest-response", "translate", "translate-file"}) {
    EXPECT_TRUE(spec.at("definitions").contains(name)) << name;
  }
  // Every route is described under the method it takes, and every described path answers it.
  for (const auto& path : kPostRoutes) EXPECT_TRUE(spec.at("paths").at(path).contains("post")) << path;
  for (const auto& path : kGetRoutes) EXPECT_TRUE(spec.at("paths").at(path).contains("get")) << path;
  EXPECT_TRUE(spec.at("paths").contains("/download_file/{filename}"));
  for (const auto& [path, methods] : spec.at("paths").items()) {
    const std::string concrete = path == "/download_file/{filename}" ? "/download_file/x.txt" : path;
    EXPECT_NE(serve::allowed_methods(concrete, true), "") << path << " is described but not answered";
    for (const auto& [method, op] : methods.items()) {
      const auto answer = method == "get" ? c.Get(concrete) : c.Post(concrete, "{}", "application/json");
      EXPECT_NE(answer->status, 405) << method << " " << path;
      for (const auto& [code, response] : op.at("responses").items()) {
        if (!response.contains("schema") || !response.at("schema").contains("$ref")) continue;
        const std::string ref = response.at("schema").at("$ref");
        EXPECT_TRUE(spec.at("definitions").contains(ref.substr(ref.rfind('/') + 1))) << ref;
      }
    }
  }
  // /translate's form parameters in LibreTranslate's shape.
  const auto& params = spec.at("paths").at("/translate").at("post").at("parameters");
  ASSERT_EQ(params.size(), 8u);
  EXPECT_EQ(params[0].at("name"), "q");
  EXPECT_EQ(params[5].at("name"), "keep_verbatim");  // ours
  EXPECT_EQ(params[6].at("name"), "glossary");       // ours
  EXPECT_EQ(params[0].at("in"), "formData");
  EXPECT_EQ(params[3].at("schema").at("enum"), (json{"text", "html"}));
}

TEST_F(Protocol, ErrorsSayWhatLibreTranslateSays) {
  serve::ServerOptions options;
  options.limits.max_chars = 10;
  test::ServedModel served(model_dir(), options, {});  // de -> en
  struct Case {
    std::string path;
    json body;
    int status;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"/translate", json::object(), 400, "Invalid request: missing q parameter"},
      {"/translate", {{"q", "Hund"}}, 400, "Invalid request: missing source parameter"},
      {"/translate", {{"q", "Hund"}, {"source", "de"}}, 400, "Invalid request: missing target parameter"},
      {"/translate", {{"q", "Hund"}, {"source", "zz"}, {"target", "en"}}, 400, "zz is not supported"},
      {"/translate", {{"q", "Hund"}, {"source", "de"}, {"target", "zz"}}, 400, "zz is not supported"},
      {"/translate", {{"q", "Hund"}, {"source", "de"}, {"target", "en"}, {"format", "xml"}}, 400,
       "xml format is not supported"},
      {"/translate", {{"q", "Hund"}, {"source", "zz"}, {"target", "en"}, {"format", "xml"}}, 400,
       "zz is not supported"},  // the languages first
      {"/translate", json::array({"Hund"}), 400, "Invalid JSON format"},
      {"/translate", {{"q", "Ein Hund rennt."}, {"source", "de"}, {"target", "en"}}, 400,
       "Invalid request: request (15) exceeds text limit (10)"},
      {"/detect", json::object(), 400, "Invalid request: missing q parameter"},
      {"/suggest", {{"q", "a"}, {"s", "b"}, {"source", "de"}, {"target", "en"}}, 403,
       "Suggestions are disabled on this server."},
  };
  for (const auto& k : cases) {
    auto c = served.client();
    const auto r = c.Post(k.path, k.body.dump(), "application/json");
    ASSERT_TRUE(r) << k.body.dump();
    EXPECT_EQ(r->status, k.status) << k.body.dump();
    EXPECT_EQ(json::parse(r->body).at("error"), k.error) << k.body.dump();
  }
  auto c = served.client();
  const auto no_file = c.Post("/translate_file", httplib::MultipartFormDataItems{{"source", "de", "", ""}, {"target", "en", "", ""}});
  EXPECT_EQ(json::parse(no_file->body).at("error"), "Invalid request: missing file parameter");
  const auto pdf = c.Post("/translate_file", httplib::MultipartFormDataItems{{"file", "%PDF-1.4", "a.pdf", "application/pdf"},
                                                                            {"source", "de", "", ""},
                                                                            {"target", "en", "", ""}});
  EXPECT_EQ(pdf->status, 400);
  EXPECT_EQ(json::parse(pdf->body).at("error"), "Invalid request: file format not supported");
  // Ours, beside LibreTranslate's fields: a file's progress by an id of the client's.
  const auto bad_id = c.Post("/translate_file", httplib::MultipartFormDataItems{{"file", "Ein Hund.", "a.txt", "text/plain"},
                                                                               {"source", "de", "", ""},
                                                                               {"target", "en", "", ""},
                                                                               {"progress_id", "../x", "", ""}});
  EXPECT_EQ(bad_id->status, 400);
  EXPECT_EQ(json::parse(bad_id->body).at("error"), "Invalid request: progress_id must be 8 to 64 letters, digits or '-'");
  const auto unknown = c.Get("/translate_file/progress/0123456789abcdef");
  EXPECT_EQ(unknown->status, 404);
  EXPECT_TRUE(json::parse(unknown->body).contains("error"));
  const auto tracked = c.Post("/translate_file", httplib::MultipartFormDataItems{{"file", "Hund.\nKuh.", "a.txt", "text/plain"},
                                                                                {"source", "de", "", ""},
                                                                                {"target", "en", "", ""},
                                                                                {"progress_id", "0123456789abcdef", "", ""}});
  ASSERT_EQ(tracked->status, 200) << tracked->body;
  EXPECT_EQ(json::parse(c.Get("/translate_file/progress/0123456789abcdef")->body),
            (json{{"done", 2}, {"total", 2}, {"finished", true}}));
  const json settings = json::parse(c.Get("/frontend/settings")->body);
  EXPECT_EQ(settings.at("supportedFilesFormat"),
            (json{".txt", ".odt", ".odp", ".docx", ".pptx", ".epub", ".html", ".srt", ".md", ".htm"}));
}

}  // namespace
}  // namespace nmt
