#include "serve/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "serve/http_error.h"
#include "serve/libretranslate_api.h"
#include "serve/listen_backlog.h"
#include "serve/opennmt_api.h"
#include "serve/http_reply.h"
#include "serve/http_routes.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

std::string default_error(const httplib::Request& req, int status) {
  switch (status) {
    case 404:
      return "No route " + req.method + " " + req.path + "; this server answers " + route_list() + ".";
    case 413:
      return "The request body is too large.";
    case 400:
      return "The request could not be parsed as HTTP.";
    default:
      return "HTTP status " + std::to_string(status) + ".";
  }
}

thread_local std::chrono::steady_clock::time_point t_request_start;



// The served models as /ready and GET /translator/models list them.
json model_list(const ServedModels& models) {
  json out = json::array();
  for (size_t i = 0; i < models.size(); ++i) {
    const auto& m = models.model(i);
    out.push_back({{"model_id", kFirstModelId + static_cast<int64_t>(i)}, {"name", m.name},
                   {"source", m.pair.source}, {"target", m.pair.target}, {"model", m.description}});
  }
  return out;
}

ServerOptions validated(ServerOptions options) {
  options.validate();
  return options;
}

}  // namespace

TranslationServer::TranslationServer(ServerOptions options)
    : options_(validated(std::move(options))),
      access_(options_.access),
      files_(options_.files),
      http_(std::make_unique<httplib::Server>()) {
  const auto threads = static_cast<size_t>(options_.http_threads);
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // A larger body is still read to its end (and dropped) before the 413, so
  // that the client, done sending, reads the answer (request_body.h).
  http_->set_payload_max_length(static_cast<size_t>(drain_limit(options_.max_body_bytes)));
  http_->set_read_timeout(options_.timeout_seconds, 0);
  http_->set_write_timeout(options_.timeout_seconds, 0);
  http_->set_keep_alive_max_count(1000);
  // Headers and body go out in two writes: without TCP_NODELAY a kept-alive
  // connection waits for the peer's delayed ACK (~40 ms) between them.
  http_->set_tcp_nodelay(true);
  // cpp-httplib sets SO_REUSEPORT by default, which lets a second server bind
  // a port already served and share its connections without an error;
  // SO_REUSEADDR alone still allows a restart while old connections linger.
  http_->set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  if (!options_.suggestions.empty()) suggestions_ = std::make_unique<memory::SuggestionStore>(options_.suggestions);
  add_hooks();
  add_routes();
}

TranslationServer::~TranslationServer() { stop(); }

int TranslationServer::bind() {
  errno = 0;
  const int port = options_.port == 0 ? http_->bind_to_any_port(options_.host)
                                      : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    const std::string why = errno ? std::strerror(errno) : "the address is not one of this machine's";
    throw Error("Cannot listen on " + options_.host + ":" + std::to_string(options_.port) + " (" + why +
                    "); choose another --port or --host.",
                kExitOther);
  }
  bound_port_ = port;
  raise_listen_backlog(port);  // httplib's backlog of 5 would fail bursts of new connections
  return port;
}

void TranslationServer::start() {
  listener_ = std::thread([this] {
    http_->listen_after_bind();
    listener_done_ = true;
  });
  wait_for_listener();
}

// httplib's stop() does nothing before the accept loop runs.
void TranslationServer::wait_for_listener() const {
  while (!listener_done_ && !http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

struct ServingSet {
  std::shared_ptr<void> owner;  // first member: destroyed last, after the batchers using its translators
  std::unique_ptr<ServedModels> models;
  std::unique_ptr<LibreTranslateService> service;
};

namespace {

// The serving set a request on this thread is pinned to, and whose server.
thread_local std::shared_ptr<ServingSet> t_pinned;
thread_local const TranslationServer* t_pinned_by = nullptr;

void unpin() {
  t_pinned.reset();
  t_pinned_by = nullptr;
}

}  // namespace

void TranslationServer::serve_models(std::vector<ModelEntry> models) { serve(ModelSet{std::move(models), nullptr}); }

void TranslationServer::serve(ModelSet set) {
  if (set.entries.empty()) throw Error("The server was given no model to serve.", kExitOther);
  if (suggestions_) {  // stored corrections answer their sentences from now on
    for (auto& m : set.entries) {
      m.translator->set_memory([store = suggestions_.get(), pair = m.pair](const std::string& sentence) {
        return store->lookup(pair.source, pair.target, sentence);
      });
    }
  }
  auto serving = std::make_shared<ServingSet>();
  serving->owner = std::move(set.owner);
  serving->models = std::make_unique<ServedModels>(std::move(set.entries), options_.batching, metrics_);
  serving->service =
      std::make_unique<LibreTranslateService>(*serving->models, access_, files_, progress_, options_.limits);
  serving->service->set_suggestions(suggestions_ != nullptr);
  std::atomic_store(&serving_, std::move(serving));
  metrics_.set_ready(true);
  ready_.store(true, std::memory_order_release);
}

void TranslationServer::set_loader(ModelLoader loader) { loader_ = std::move(loader); }

std::string TranslationServer::reload() {
  std::lock_guard<std::mutex> lock(reload_mutex_);
  if (!loader_) throw Error("This server was given models, not model directories: it has nothing to reload.", kExitOther);
  ModelSet set = loader_();
  for (const auto& e : set.entries) {  // each must translate before it serves
    const auto t = e.translator->translate({"1."});
    if (t.size() != 1) throw Error("The reloaded model " + e.name + " did not translate.", kExitOther);
  }
  serve(std::move(set));
  return pairs();
}

std::string TranslationServer::pairs() const {
  const auto s = std::atomic_load(&serving_);
  return s ? s->models->routes().describe() : "";
}

ServingSet& TranslationServer::current() {
  if (t_pinned && t_pinned_by == this) return *t_pinned;
  auto s = std::atomic_load(&serving_);
  if (!s) throw HttpError(503, "The models are still loading; GET /ready answers 200 once they are served.");
  t_pinned = std::move(s);
  t_pinned_by = this;
  return *t_pinned;
}

void TranslationServer::serve_model(decode::Translator& translator, const data::LanguagePair& pair,
                                    const std::string& description) {
  serve_models({ModelEntry{&translator, pair, "model", description}});
}

void TranslationServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (listener_.joinable()) {
    wait_for_listener();
    http_->stop();
    listener_.join();  // returns once every request in flight is answered
  }
  if (const auto s = std::atomic_load(&serving_)) s->models->stop();
}

ServedModels& TranslationServer::ready_models() { return *current().models; }

LibreTranslateService& TranslationServer::ready_service() { return *current().service; }

void TranslationServer::add_hooks() {
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    unpin();
    const std::string allow = req.method == "OPTIONS" ? allowed_methods(req.path, options_.ui) : "";
    if (!allow.empty()) res.set_header("Allow", allow);
    if (req.method == "OPTIONS" && (!options_.cors_origin.empty() || !allow.empty())) {  // CORS preflight
      res.status = 204;
      if (options_.cors_origin.empty()) return httplib::Server::HandlerResponse::Handled;
      res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      res.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization");
      res.set_header("Access-Control-Max-Age", "600");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Named type: a lambda would fit both of set_error_handler's overloads.
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
        // A path we answer, asked with another method: 405 with the methods it takes, not 404.
        const std::string allow = res.status == 404 && res.body.empty() ? allowed_methods(req.path, options_.ui) : "";
        if (!allow.empty()) {
          res.set_header("Allow", allow);
          send_error(res, 405, "The method is not allowed for the requested URL.");
        }
        if (res.body.empty()) send_error(res, res.status, default_error(req, res.status));
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, 500, "Internal error: " + what);
  });
  http_->set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!options_.cors_origin.empty()) {
      res.set_header("Access-Control-Allow-Origin", options_.cors_origin);
      res.set_header("Access-Control-Expose-Headers", "X-Translation-Pivot");
    }
    const auto start = t_request_start;
    t_request_start = {};
    const double seconds = start == std::chrono::steady_clock::time_point{}
                               ? 0.0
                               : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.count_request(route_label(req.path), res.status, seconds);
    unpin();  // the models this request used may go now
  });
}


void TranslationServer::handle_models(httplib::Response& res) {
  json out = model_list(ready_models());
  for (auto& m : out) m["loaded"] = true;
  send_json(res, 200, out);
}

void TranslationServer::handle_ready(httplib::Response& res) {
  if (!ready_.load(std::memory_order_acquire)) {
    send_json(res, 503, {{"status", "loading"}, {"error", "The models are still loading."}});
    return;
  }
  const ServedModels& served = ready_models();
  const json models = model_list(served);
  const auto& first = served.model(0);
  // source/target/model: the first model's, as before several models could be served.
  send_json(res, 200,
            {{"status", "ready"}, {"source", first.pair.source}, {"target", first.pair.target},
             {"model", first.description}, {"models", models}, {"pairs", served.routes().describe()}});
}

void TranslationServer::handle_opennmt(const httplib::Request& req, httplib::Response& res,
                                       const httplib::ContentReader& reader) {
  const json body = read_json_body(req, reader, options_.max_body_bytes);
  access_.admit(caller(req, nullptr).key, req.remote_addr);
  ServedModels& models = ready_models();
  const auto request = parse_opennmt(body);
  const int64_t index = request.id - kFirstModelId;
  if (index < 0 || index >= static_cast<int64_t>(models.size())) {
    throw HttpError(400, "No model with id " + std::to_string(request.id) + "; this server's models are " +
                             std::to_string(kFirstModelId) + " to " +
                             std::to_string(kFirstModelId + static_cast<int64_t>(models.size()) - 1) +
                             " (GET /translator/models lists them).");
  }
  options_.limits.check(request.texts);
  const auto id = static_cast<size_t>(index);
  const auto& defaults = models.model(id).translator->options().search;
  const DecodingRequest decoding{requested_search(request, defaults), request.target_prefixes, std::nullopt, nullptr};
  const int64_t nbest = decoding.search ? decoding.search->nbest : defaults.nbest;
  send_json(res, 200,
            opennmt_response(request.texts, translate_texts(models.batcher(id), request.texts, false, decoding), nbest));
}

}  // namespace nmt::serve
