// `translator --serve`: an HTTP server (cpp-httplib) in front of one model or
// several. HTTP threads only read, parse and wait; each model's Batcher
// decodes the sentences of all pending requests together. Routes:
// LibreTranslate's POST /translate, GET /languages, POST /detect,
// GET /frontend/settings, POST /suggest, POST /translate_file and
// GET /download_file/NAME; OpenNMT-py's POST /translator/translate and
// GET /translator/models; GET /health, GET /ready, GET /metrics (Prometheus
// text); the page at / (serve/page_files.h). Every error is a 4xx/5xx with
// {"error": "..."}.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "data/language_pair.h"
#include "decode/translation.h"
#include "memory/suggestion_store.h"
#include "serve/access_control.h"
#include "serve/file_store.h"
#include "serve/libretranslate_service.h"
#include "serve/served_models.h"
#include "serve/server_metrics.h"
#include "serve/server_options.h"

namespace httplib {
class Server;
struct Request;
struct Response;
class ContentReader;
}  // namespace httplib

namespace nmt::serve {

struct RouteHandlers;  // serve/route_handlers.cpp
struct ServingSet;     // the models served now, with their service (serve/http_server.cpp)

// Models to serve, and what keeps their translators alive (none: the caller does).
struct ModelSet {
  std::vector<ModelEntry> entries;
  std::shared_ptr<void> owner;
};
// Loads the models anew from where they came from (POST /reload, SIGHUP).
using ModelLoader = std::function<ModelSet()>;

class TranslationServer {
 public:
  // Reads --api-keys (a DataError naming the file when it is wrong) and
  // makes the folder for translated files.
  explicit TranslationServer(ServerOptions options);
  ~TranslationServer();  // stop()
  TranslationServer(const TranslationServer&) = delete;
  TranslationServer& operator=(const TranslationServer&) = delete;

  // Binds options.host:options.port (port 0: a free one) and returns the
  // port; an Error naming the address when that fails.
  int bind();
  // Serves from a background thread: /health answers at once, /ready and the
  // translation routes say 503 until serve_models().
  void start();
  // From now on requests are translated by these models (at least one; each
  // translator must outlive the server).
  void serve_models(std::vector<ModelEntry> models);
  void serve(ModelSet models);
  // Lets POST /reload (a key with the review right) and reload() load the models again.
  void set_loader(ModelLoader loader);
  // Loads the models with the loader, checks that each translates, and swaps
  // them in: requests already in flight finish on the old models, which go
  // when the last of them is answered; new requests get the new ones, none
  // is refused. When loading or the check fails, the old models keep
  // serving and the Error says why. Returns the pairs now served.
  std::string reload();
  // One model for `pair`; `description` is what /ready reports.
  void serve_model(decode::Translator& translator, const data::LanguagePair& pair, const std::string& description);
  // Stops accepting connections, finishes the requests in flight (their
  // translations included) and returns when all are answered. Idempotent.
  void stop();

  ServerMetrics& metrics() { return metrics_; }
  // "de->en, en->de, de->fr (through en)" once serving; "" before.
  std::string pairs() const;

 private:
  // Registered from the route table (serve/route_handlers.cpp).
  void add_routes();
  void add_hooks();
  void add_page_routes();
  void add_service_handlers(RouteHandlers& h);
  void add_libretranslate_handlers(RouteHandlers& h);
  void add_review_handlers(RouteHandlers& h);
  void add_reload_handler(RouteHandlers& h);
  void handle_opennmt(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);
  void handle_models(httplib::Response& res);
  void handle_ready(httplib::Response& res);
  void handle_download(const httplib::Request& req, httplib::Response& res);
  // The store, for a request with a key that may review it (else an HttpError 403 or 404).
  memory::SuggestionStore& reviewed_store(const httplib::Request& req);
  Caller caller(const httplib::Request& req, const RequestBody* body) const;
  // The models (and service) this request is served by: pinned at its first
  // use for the rest of the request, so that a reload cannot pull them away.
  ServingSet& current();
  ServedModels& ready_models();
  LibreTranslateService& ready_service();
  void wait_for_listener() const;

  ServerOptions options_;
  ServerMetrics metrics_;
  AccessControl access_;
  FileStore files_;
  FileProgress progress_;  // files being translated: kept across reloads
  std::unique_ptr<httplib::Server> http_;
  std::thread listener_;
  std::atomic<bool> listener_done_{false};
  std::shared_ptr<ServingSet> serving_;  // read and swapped with std::atomic_load/store
  ModelLoader loader_;
  std::mutex reload_mutex_;  // one reload at a time
  std::unique_ptr<memory::SuggestionStore> suggestions_;  // with --suggestions
  std::atomic<bool> ready_{false};
  bool stopped_ = false;
  int bound_port_ = 0;
};

}  // namespace nmt::serve
