#include "serve/http_routes.h"

#include "serve/page_files.h"

namespace nmt::serve {

const std::vector<HttpRoute>& http_routes() {
  static const std::vector<HttpRoute> routes = {
      {"GET", "/", "/page", true},
      {"POST", "/translate", "/translate"},
      {"GET", "/languages", "/languages"},
      {"POST", "/detect", "/detect"},
      {"GET", "/frontend/settings", "/frontend/settings"},
      {"POST", "/suggest", "/suggest"},
      {"POST", "/translate_file", "/translate_file"},
      {"GET", "/translate_file/progress/{id}", "/translate_file/progress"},
      {"GET", "/download_file/{filename}", "/download_file"},
      {"GET", "/suggestions", "/suggestions"},
      {"POST", "/suggestions/{id}/{decision}", "/suggestions/review"},
      {"GET", "/suggestions/export", "/suggestions/export"},
      {"POST", "/suggestions/import", "/suggestions/import"},
      {"POST", "/reload", "/reload"},
      {"POST", "/translator/translate", "/translator/translate"},
      {"GET", "/translator/models", "/translator/models"},
      {"GET", "/health", "/health"},
      {"GET", "/ready", "/ready"},
      {"GET", "/metrics", "/metrics"},
      {"GET", "/spec", "/spec"},
  };
  return routes;
}

bool route_matches(const HttpRoute& route, const std::string& path) {
  const std::string& p = route.path;
  size_t i = 0, j = 0;
  while (i < p.size() && j < path.size()) {
    if (p[i] == '{') {
      const size_t close = p.find('}', i);
      const size_t end = std::min(path.find('/', j), path.size());
      if (end == j) return false;  // an empty segment
      i = close + 1;
      j = end;
    } else if (p[i++] != path[j++]) {
      return false;
    }
  }
  return i == p.size() && j == path.size();
}

std::string route_pattern(const HttpRoute& route) {
  std::string out;
  for (size_t i = 0; i < route.path.size(); ++i) {
    if (route.path[i] == '{') {
      out += "([^/]+)";
      i = route.path.find('}', i);
    } else {
      out += route.path[i];
    }
  }
  return out;
}

std::string route_key(const HttpRoute& route) { return route.method + " " + route.path; }

namespace {

bool is_page_file(const std::string& path) {
  for (const PageFile& file : page_files()) {
    if (path == file.path && path != std::string("/index.html")) return true;
  }
  return false;
}

}  // namespace

std::string route_label(const std::string& path) {
  for (const auto& r : http_routes()) {
    if (route_matches(r, path)) return r.label;
  }
  return is_page_file(path) ? "/page" : "other";
}

std::string allowed_methods(const std::string& path, bool page) {
  bool get = page && is_page_file(path), post = false;
  for (const auto& r : http_routes()) {
    if ((r.page && !page) || !route_matches(r, path)) continue;
    get = get || r.method == "GET";
    post = post || r.method == "POST";
  }
  if (get && post) return "GET, HEAD, POST, OPTIONS";
  if (get) return "GET, HEAD, OPTIONS";
  return post ? "POST, OPTIONS" : "";
}

std::string route_list() {
  std::string out;
  const auto& routes = http_routes();
  for (size_t k = 0; k < routes.size(); ++k) {
    if (k > 0) out += k + 1 == routes.size() ? " and " : ", ";
    out += route_key(routes[k]);
    if (routes[k].page) out += " (its page, unless --no-ui)";
  }
  return out;
}

}  // namespace nmt::serve
