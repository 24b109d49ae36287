// `translator --serve`: an HTTP server (cpp-httplib) in front of one model.
// HTTP threads only read, parse and wait; the Batcher decodes the sentences
// of all pending requests together. Routes: POST /translate and
// GET /languages (LibreTranslate), POST /translator/translate (OpenNMT-py),
// GET /health, GET /ready, GET /metrics (Prometheus text). Every error is a
// 4xx/5xx with {"error": "..."}.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "data/language_pair.h"
#include "decode/translation.h"
#include "serve/batcher.h"
#include "serve/server_metrics.h"
#include "serve/server_options.h"

namespace httplib {
class Server;
struct Request;
struct Response;
class ContentReader;
}  // namespace httplib

namespace nmt::serve {

class TranslationServer {
 public:
  explicit TranslationServer(ServerOptions options);
  ~TranslationServer();  // stop()
  TranslationServer(const TranslationServer&) = delete;
  TranslationServer& operator=(const TranslationServer&) = delete;

  // Binds options.host:options.port (port 0: a free one) and returns the
  // port; an Error naming the address when that fails.
  int bind();
  // Serves from a background thread: /health answers at once, /ready and the
  // translation routes say 503 until serve_model().
  void start();
  // From now on requests are translated with `translator` (which must outlive
  // the server) for `pair`; `description` is what /ready reports.
  void serve_model(decode::Translator& translator, const data::LanguagePair& pair, const std::string& description);
  // Stops accepting connections, finishes the requests in flight (their
  // translations included) and returns when all are answered. Idempotent.
  void stop();

  ServerMetrics& metrics() { return metrics_; }

 private:
  void add_routes();
  void add_hooks();
  void handle_libretranslate(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);
  void handle_opennmt(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);
  void handle_ready(httplib::Response& res);
  std::string read_body(const httplib::Request& req, const httplib::ContentReader& reader) const;
  void check_key(const httplib::Request& req, const std::string& body_key) const;
  Batcher& ready_batcher();
  void wait_for_listener() const;

  ServerOptions options_;
  ServerMetrics metrics_;
  std::unique_ptr<httplib::Server> http_;
  std::thread listener_;
  std::atomic<bool> listener_done_{false};
  std::unique_ptr<Batcher> batcher_;
  data::LanguagePair pair_;
  std::string description_;
  int64_t nbest_ = 1;
  std::atomic<bool> ready_{false};
  bool stopped_ = false;
};

}  // namespace nmt::serve
