// The server's handlers, registered from the one table of routes
// (serve/http_routes.h): every row gets the handler written for its key
// here, and a row without one stops the server from starting.
#include <httplib.h>

#include <map>
#include <stdexcept>

#include "serve/download_type.h"
#include "serve/http_reply.h"
#include "serve/http_routes.h"
#include "serve/http_server.h"
#include "serve/libretranslate_api.h"
#include "serve/openapi_spec.h"
#include "serve/page_files.h"
#include "serve/suggestions_api.h"
#include "util/error.h"

namespace nmt::serve {

using nlohmann::json;
using Reader = httplib::ContentReader;

struct RouteHandlers {
  std::map<std::string, httplib::Server::Handler> get;
  std::map<std::string, httplib::Server::HandlerWithContentReader> post;
};

void TranslationServer::add_routes() {
  RouteHandlers h;
  add_service_handlers(h);
  add_libretranslate_handlers(h);
  add_review_handlers(h);
  add_reload_handler(h);
  for (const HttpRoute& route : http_routes()) {
    const std::string key = route_key(route);
    if (route.page) {
      if (options_.ui) add_page_routes();
      continue;
    }
    if (route.method == "GET" && h.get.count(key)) {
      http_->Get(route_pattern(route), h.get.at(key));
    } else if (route.method == "POST" && h.post.count(key)) {
      http_->Post(route_pattern(route), h.post.at(key));
    } else {
      throw std::logic_error("The route table lists " + key + ", which has no handler.");
    }
  }
}

void TranslationServer::add_page_routes() {
  for (const PageFile& file : page_files()) {
    const std::string path = file.path == std::string("/index.html") ? "/" : file.path;
    http_->Get(path, [&file](const httplib::Request&, httplib::Response& res) {
      res.set_header("Content-Security-Policy", kPagePolicy);
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Referrer-Policy", "no-referrer");
      res.set_header("Cache-Control", "no-cache");
      res.set_content(file.body.data(), file.body.size(), file.content_type);
    });
  }
}

void TranslationServer::add_service_handlers(RouteHandlers& h) {
  h.get["GET /health"] = [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"status", "ok"}});  // LibreTranslate's body
  };
  h.get["GET /spec"] = [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, openapi_spec()); };
  h.get["GET /ready"] = [this](const httplib::Request&, httplib::Response& res) { handle_ready(res); };
  h.get["GET /metrics"] = [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_.prometheus_text(), "text/plain; version=0.0.4");
  };
  h.post["POST /translator/translate"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    guarded(res, [&] { handle_opennmt(req, res, reader); });
  };
  h.get["GET /translator/models"] = [this](const httplib::Request&, httplib::Response& res) {
    guarded(res, [&] { handle_models(res); });
  };
}

void TranslationServer::add_libretranslate_handlers(RouteHandlers& h) {
  h.get["GET /languages"] = [this](const httplib::Request&, httplib::Response& res) {
    guarded(res, [&] { send_json(res, 200, libretranslate_languages(ready_models().routes())); });
  };
  h.get["GET /frontend/settings"] = [this](const httplib::Request&, httplib::Response& res) {
    guarded(res, [&] { send_json(res, 200, ready_service().frontend_settings()); });
  };
  h.post["POST /translate"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    guarded(res, [&] {
      const auto body = read_request_body(req, reader, options_.max_body_bytes);
      std::vector<std::string> pivots;
      const json answer = ready_service().translate(body, caller(req, &body), pivots);
      // LibreTranslate's answer has no field for it: a header says which languages were pivots.
      if (!pivots.empty()) res.set_header("X-Translation-Pivot", pivots.front());
      send_json(res, 200, answer);
    });
  };
  h.post["POST /detect"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    guarded(res, [&] {
      const auto body = read_request_body(req, reader, options_.max_body_bytes);
      send_json(res, 200, ready_service().detect(body, caller(req, &body)));
    });
  };
  h.post["POST /translate_file"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    guarded(res, [&] {
      const auto body = read_request_body(req, reader, options_.max_body_bytes);
      // Behind a TLS proxy the link must say https, or the page's link is blocked mixed content.
      const std::string host = req.get_header_value("Host");
      const std::string scheme = req.get_header_value("X-Forwarded-Proto") == "https" ? "https" : "http";
      const std::string base =
          scheme + "://" + (host.empty() ? options_.host + ":" + std::to_string(bound_port_) : host);
      send_json(res, 200, ready_service().translate_file(body, caller(req, &body), base));
    });
  };
  h.get["GET /translate_file/progress/{id}"] = [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      const std::string id = req.matches[1];
      const auto p = ready_service().progress().get(id);
      if (!p) throw HttpError(404, "No file is being translated with progress_id " + id + ".");
      send_json(res, 200, {{"done", p->done}, {"total", p->total}, {"finished", p->finished}});
    });
  };
  h.get["GET /download_file/{filename}"] = [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] { handle_download(req, res); });
  };
}

// POST /suggest and the routes that review what it stored.
void TranslationServer::add_review_handlers(RouteHandlers& h) {
  h.post["POST /suggest"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    if (!suggestions_) {
      reader([](const char*, size_t) { return true; });  // read to the end, so the client reads the answer
      send_error(res, 403, "Suggestions are disabled on this server.");  // LibreTranslate's words
      return;
    }
    guarded(res, [&] {
      const auto body = read_request_body(req, reader, options_.max_body_bytes);
      const Caller who = caller(req, &body);
      access_.admit(who.key, who.address);
      send_json(res, 200, store_suggestion(*suggestions_, body.fields, who.key, options_.limits));
    });
  };
  h.get["GET /suggestions"] = [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      auto& store = reviewed_store(req);
      send_json(res, 200, list_suggestions(store, req.get_param_value("status"), req.get_param_value("limit"),
                                           req.get_param_value("offset")));
    });
  };
  h.post["POST /suggestions/{id}/{decision}"] = [this](const httplib::Request& req, httplib::Response& res,
                                                       const Reader& reader) {
    reader([](const char*, size_t) { return true; });
    guarded(res, [&] { send_json(res, 200, review_suggestion(reviewed_store(req), req.matches[1], req.matches[2])); });
  };
  h.get["GET /suggestions/export"] = [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      auto file = export_suggestions(reviewed_store(req), req.get_param_value("format"), req.get_param_value("status"));
      res.set_header("Content-Disposition", "attachment; filename=\"" + file.filename + "\"");
      res.set_content(std::move(file.content), file.media_type);
    });
  };
  h.post["POST /suggestions/import"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    guarded(res, [&] {
      auto& store = reviewed_store(req);  // before reading: no key, no upload
      std::string tmx;
      reader([&](const char* data, size_t n) {
        if (static_cast<int64_t>(tmx.size() + n) > options_.max_body_bytes) {
          throw HttpError(413, "The TMX file is over " + std::to_string(options_.max_body_bytes) + " bytes.");
        }
        tmx.append(data, n);
        return true;
      });
      send_json(res, 200, import_suggestions(store, tmx));
    });
  };
}

// POST /reload: the model directories loaded again and swapped in (reload()).
void TranslationServer::add_reload_handler(RouteHandlers& h) {
  h.post["POST /reload"] = [this](const httplib::Request& req, httplib::Response& res, const Reader& reader) {
    reader([](const char*, size_t) { return true; });
    guarded(res, [&] {
      access_.admit_reviewer(caller(req, nullptr).key);
      if (!loader_) throw HttpError(404, "This server was given models, not model directories: it has nothing to reload.");
      try {
        send_json(res, 200, {{"status", "reloaded"}, {"pairs", reload()}});
      } catch (const Error& e) {
        throw HttpError(500, std::string("The reload failed; the models loaded before go on serving: ") + e.what());
      }
    });
  };
}

memory::SuggestionStore& TranslationServer::reviewed_store(const httplib::Request& req) {
  if (!suggestions_) throw HttpError(404, "This server keeps no suggestions (start it with --suggestions FILE).");
  access_.admit_reviewer(caller(req, nullptr).key);
  return *suggestions_;
}

}  // namespace nmt::serve
