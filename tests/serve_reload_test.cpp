// Reloading a served model under load: 64 connections translate without
// pause while POST /reload swaps in the model directory loaded again, three
// times; not one request fails and every answer is the model's translation.
// A reload that cannot load keeps the old model serving; only a key with
// the review right may ask for one; a file's progress outlives a reload.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/sample_model_util.h"
#include "tests/serve_test_util.h"
#include "util/error.h"

namespace nmt::test {
namespace {

using nlohmann::json;

struct Reloadable {
  std::unique_ptr<serve::TranslationServer> server;
  int port = 0;
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    c.set_keep_alive(true);  // a connection each, as serve_bench's clients hold theirs
    return c;
  }
};

// A server for `dir` whose loader loads it again, as translator --serve's
// does; its one key, "admin", has the review right. `fail`: loading fails while set.
Reloadable reloadable(const std::string& dir, const std::atomic<bool>& fail) {
  serve::ServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.access.api_key = "admin";
  o.http_threads = 96;
  Reloadable r;
  r.server = std::make_unique<serve::TranslationServer>(o);
  r.port = r.server->bind();
  r.server->start();
  auto load = [dir, &fail] {
    if (fail) throw nmt::DataError("The model directory " + dir + " is being rewritten.");
    auto owner = std::make_shared<cli::ServedModelDir>(
        cli::load_served_model_dir(dir, "", torch::kCPU, cli::default_decoding(), {}));
    return serve::ModelSet{owner->pairs.entries, owner};
  };
  r.server->serve(load());
  r.server->set_loader(load);
  return r;
}

class ServeReload : public SampleModelTest {};

TEST_F(ServeReload, SixtyFourConnectionsSeeNoFailureAcrossThreeReloads) {
  std::atomic<bool> fail{false};
  const Reloadable served = reloadable(sample_model_dir(), fail);
  const std::vector<std::string> lines = {"The cup is cheap.", "The mice come into the shop.",
                                          "The brother wants to show the old woman the house."};
  const json request = {{"q", lines}, {"source", "en"}, {"target", "de"}, {"api_key", "admin"}};
  auto first = served.client();
  const auto expected = first.Post("/translate", request.dump(), "application/json");
  ASSERT_TRUE(expected);
  ASSERT_EQ(expected->status, 200);
  std::atomic<bool> done{false};
  std::atomic<int64_t> ok{0}, failed{0}, different{0};
  std::mutex first_failure_mutex;
  std::string first_failure;
  std::vector<std::thread> clients;
  for (int k = 0; k < 64; ++k) {
    clients.emplace_back([&] {
      auto c = served.client();
      while (!done) {
        const auto r = c.Post("/translate", request.dump(), "application/json");
        if (!r || r->status != 200) {
          ++failed;
          std::lock_guard<std::mutex> lock(first_failure_mutex);
          if (first_failure.empty()) {
            first_failure = r ? std::to_string(r->status) + " " + r->body : "no answer: " + httplib::to_string(r.error());
          }
        } else {
          ++(r->body == expected->body ? ok : different);
        }
      }
    });
  }
  auto admin = served.client();
  const httplib::Headers key = {{"Authorization", "Bearer admin"}};
  for (int reload = 0; reload < 3; ++reload) {
    const int64_t before = ok;
    while (ok < before + 64) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto r = admin.Post("/reload", key, "", "text/plain");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(json::parse(r->body)["pairs"], "en->de");
  }
  const int64_t before = ok;
  while (ok < before + 64) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  done = true;
  for (auto& t : clients) t.join();
  EXPECT_EQ(failed, 0) << first_failure;
  EXPECT_EQ(different, 0);
  EXPECT_GT(ok, 4 * 64);
}

TEST_F(ServeReload, AFailedReloadKeepsTheOldModelAndOnlyAReviewKeyMayAsk) {
  std::atomic<bool> fail{false};
  const Reloadable served = reloadable(sample_model_dir(), fail);
  auto c = served.client();
  EXPECT_EQ(c.Post("/reload", "", "text/plain")->status, 403);
  fail = true;
  const auto r = c.Post("/reload", {{"Authorization", "Bearer admin"}}, "", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_NE(r->body.find("go on serving"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("being rewritten"), std::string::npos) << r->body;
  const json asked = {{"q", "The cup is cheap."}, {"source", "en"}, {"target", "de"}, {"api_key", "admin"}};
  const auto t = c.Post("/translate", asked.dump(), "application/json");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->status, 200) << t->body;
}

// A file's progress is the server's, not the model set's: a reload does not forget it.
TEST_F(ServeReload, AFilesProgressOutlivesAReload) {
  std::atomic<bool> fail{false};
  const Reloadable served = reloadable(sample_model_dir(), fail);
  auto c = served.client();
  const auto file = c.Post("/translate_file", {{"Authorization", "Bearer admin"}},
                           httplib::MultipartFormDataItems{{"file", "The cup.\nThe dog.", "a.txt", "text/plain"},
                                                           {"source", "en", "", ""},
                                                           {"target", "de", "", ""},
                                                           {"progress_id", "reload-0123456789", "", ""}});
  ASSERT_TRUE(file);
  ASSERT_EQ(file->status, 200) << file->body;
  const json finished = {{"done", 2}, {"total", 2}, {"finished", true}};
  const auto progress = [&] { return c.Get("/translate_file/progress/reload-0123456789", {{"Authorization", "Bearer admin"}}); };
  EXPECT_EQ(json::parse(progress()->body), finished);
  const auto r = c.Post("/reload", {{"Authorization", "Bearer admin"}}, "", "text/plain");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const auto after = progress();
  ASSERT_TRUE(after);
  ASSERT_EQ(after->status, 200) << after->body;
  EXPECT_EQ(json::parse(after->body), finished);
}

}  // namespace
}  // namespace nmt::test
