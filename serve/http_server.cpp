#include "serve/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <c10/util/Exception.h>

#include "serve/http_error.h"
#include "serve/libretranslate_api.h"
#include "serve/opennmt_api.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

constexpr const char* kJson = "application/json";

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  // replace: a stray invalid byte must not turn an answer into an exception.
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, {{"error", message}});
}

// Runs a handler body; refusals and failures become JSON errors.
template <typename Body>
void guarded(httplib::Response& res, Body&& body) {
  try {
    body();
  } catch (const HttpError& e) {
    send_error(res, e.status(), e.what());
    if (e.status() == 413) res.set_header("Connection", "close");  // the rest of the body was not read
  } catch (const QueueFull& e) {
    send_error(res, 429, e.what());
    res.set_header("Retry-After", "1");
  } catch (const ShuttingDown& e) {
    send_error(res, 503, e.what());
  } catch (const c10::Error& e) {  // without the C++ backtrace what() carries
    send_error(res, 500, std::string("The translation failed: ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    send_error(res, 500, std::string("The translation failed: ") + e.what());
  }
}

json parse_json_body(const std::string& body) {
  try {
    return json::parse(body);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw HttpError(400, std::string("Malformed JSON: ") + e.what());
  }
}

// application/x-www-form-urlencoded fields as a JSON object of strings; a
// field given more than once (q=a&q=b) becomes an array.
json parse_form_body(const std::string& body) {
  httplib::Params params;
  httplib::detail::parse_query_text(body, params);
  json out = json::object();
  for (const auto& [key, value] : params) {
    if (!out.contains(key)) {
      out[key] = value;
    } else {
      if (!out[key].is_array()) out[key] = json::array({out[key]});
      out[key].push_back(value);
    }
  }
  return out;
}

bool same_key(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  // Every byte is compared, so the time taken does not reveal a common prefix.
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string route_label(const std::string& path) {
  for (const char* known : {"/translate", "/languages", "/translator/translate", "/health", "/ready", "/metrics"}) {
    if (path == known) return path;
  }
  return "other";
}

std::string default_error(const httplib::Request& req, int status) {
  switch (status) {
    case 404:
      return "No route " + req.method + " " + req.path +
             "; this server answers POST /translate, GET /languages, POST /translator/translate, GET /health, "
             "GET /ready and GET /metrics.";
    case 413:
      return "The request body is too large.";
    case 400:
      return "The request could not be parsed as HTTP.";
    default:
      return "HTTP status " + std::to_string(status) + ".";
  }
}

thread_local std::chrono::steady_clock::time_point t_request_start;

}  // namespace

TranslationServer::TranslationServer(ServerOptions options)
    : options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
  options_.validate();
  const auto threads = static_cast<size_t>(options_.http_threads);
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_payload_max_length(static_cast<size_t>(options_.max_body_bytes));
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

void TranslationServer::serve_model(decode::Translator& translator, const data::LanguagePair& pair,
                                    const std::string& description) {
  pair_ = pair;
  description_ = description;
  nbest_ = translator.options().search.nbest;
  batcher_ = std::make_unique<Batcher>(translator, options_.batching, metrics_);
  metrics_.set_ready(true);
  ready_.store(true, std::memory_order_release);
}

void TranslationServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (listener_.joinable()) {
    wait_for_listener();
    http_->stop();
    listener_.join();  // returns once every request in flight is answered
  }
  if (batcher_) batcher_->stop();
}

Batcher& TranslationServer::ready_batcher() {
  if (!ready_.load(std::memory_order_acquire)) {
    throw HttpError(503, "The model is still loading; GET /ready answers 200 once it is served.");
  }
  return *batcher_;
}

void TranslationServer::add_hooks() {
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    if (req.method == "OPTIONS" && !options_.cors_origin.empty()) {  // CORS preflight
      res.status = 204;
      res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      res.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization");
      res.set_header("Access-Control-Max-Age", "600");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Named type: a lambda would fit both of set_error_handler's overloads.
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
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
    if (!options_.cors_origin.empty()) res.set_header("Access-Control-Allow-Origin", options_.cors_origin);
    const auto start = t_request_start;
    t_request_start = {};
    const double seconds = start == std::chrono::steady_clock::time_point{}
                               ? 0.0
                               : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.count_request(route_label(req.path), res.status, seconds);
  });
}

void TranslationServer::add_routes() {
  http_->Get("/health", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"status", "alive"}});
  });
  http_->Get("/ready", [this](const httplib::Request&, httplib::Response& res) { handle_ready(res); });
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_.prometheus_text(), "text/plain; version=0.0.4");
  });
  http_->Get("/languages", [this](const httplib::Request&, httplib::Response& res) {
    guarded(res, [&] {
      ready_batcher();
      send_json(res, 200, libretranslate_languages(pair_));
    });
  });
  http_->Post("/translate",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                guarded(res, [&] { handle_libretranslate(req, res, reader); });
              });
  http_->Post("/translator/translate",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                guarded(res, [&] { handle_opennmt(req, res, reader); });
              });
}

void TranslationServer::handle_ready(httplib::Response& res) {
  if (!ready_.load(std::memory_order_acquire)) {
    send_json(res, 503, {{"status", "loading"}, {"error", "The model is still loading."}});
    return;
  }
  send_json(res, 200,
            {{"status", "ready"}, {"source", pair_.source}, {"target", pair_.target}, {"model", description_}});
}

std::string TranslationServer::read_body(const httplib::Request& req, const httplib::ContentReader& reader) const {
  if (req.is_multipart_form_data()) {
    throw HttpError(415, "multipart/form-data is not supported; send JSON or application/x-www-form-urlencoded.");
  }
  // Without a body (or a length) httplib would wait for the connection to
  // close to find the body's end.
  const bool chunked = req.get_header_value("Transfer-Encoding") == "chunked";
  if (!chunked && req.get_header_value<uint64_t>("Content-Length") == 0) {
    throw HttpError(400, "The request has no body; send the texts to translate as JSON.");
  }
  const auto max = static_cast<size_t>(options_.max_body_bytes);
  auto too_large = [max] {
    return HttpError(413, "The request body is larger than this server's limit of " + std::to_string(max) + " bytes.");
  };
  if (req.get_header_value<uint64_t>("Content-Length") > max) throw too_large();
  std::string body;
  bool over = false;
  // Chunked bodies have no Content-Length: the limit is enforced as they arrive.
  const bool ok = reader([&](const char* data, size_t n) {
    if (body.size() + n > max) {
      over = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (over) throw too_large();
  if (!ok) throw HttpError(400, "The request body could not be read.");
  return body;
}

void TranslationServer::check_key(const httplib::Request& req, const std::string& body_key) const {
  if (options_.api_key.empty()) return;
  std::string given = body_key;
  const std::string authorization = req.get_header_value("Authorization");
  if (authorization.rfind("Bearer ", 0) == 0) given = authorization.substr(7);
  if (given.empty()) {
    throw HttpError(401, "This server needs an API key: send \"Authorization: Bearer KEY\" (or api_key).");
  }
  if (!same_key(given, options_.api_key)) throw HttpError(403, "Invalid API key.");
}

void TranslationServer::handle_libretranslate(const httplib::Request& req, httplib::Response& res,
                                              const httplib::ContentReader& reader) {
  const std::string body = read_body(req, reader);
  const bool form = req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0;
  const json fields = form ? parse_form_body(body) : parse_json_body(body);
  const auto key = fields.is_object() ? fields.find("api_key") : fields.end();
  check_key(req, key != fields.end() && key->is_string() ? key->get<std::string>() : std::string());
  Batcher& batcher = ready_batcher();
  const auto request = parse_libretranslate(fields, pair_);
  options_.limits.check(request.texts, /*count_lines=*/request.format != "html");
  const auto translations =
      request.format == "html" ? translate_html_texts(batcher, request.texts) : translate_texts(batcher, request.texts);
  send_json(res, 200, libretranslate_response(request, translations));
}

void TranslationServer::handle_opennmt(const httplib::Request& req, httplib::Response& res,
                                       const httplib::ContentReader& reader) {
  const std::string body = read_body(req, reader);
  check_key(req, "");
  Batcher& batcher = ready_batcher();
  const auto texts = parse_opennmt(parse_json_body(body));
  options_.limits.check(texts);
  send_json(res, 200, opennmt_response(texts, translate_texts(batcher, texts), nbest_));
}

}  // namespace nmt::serve
