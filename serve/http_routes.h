// Every route the server answers, in one table that everything else reads:
// the server registers a handler per row (and fails to start if a row has
// none), /spec describes the rows (and fails if one is undescribed), a 405
// names the methods of a path's rows (its Allow header, OPTIONS), a 404
// lists them, and /metrics counts requests under their labels.
#pragma once

#include <string>
#include <vector>

namespace nmt::serve {

struct HttpRoute {
  std::string method;  // "GET" or "POST"
  std::string path;    // as /spec writes it; "{name}" is one path segment
  std::string label;   // what /metrics counts it under
  bool page = false;   // the page (its files at / and beside it): off with --no-ui
};

const std::vector<HttpRoute>& http_routes();

// Whether `path` is the route's ("{name}": one or more characters but '/').
bool route_matches(const HttpRoute& route, const std::string& path);
// The route's path as cpp-httplib's pattern: "{name}" as a capture group.
std::string route_pattern(const HttpRoute& route);
// "METHOD PATH" of the route: the key its handler and its description are found by.
std::string route_key(const HttpRoute& route);

// The label of the route answering `path` (any method), "/page" for the
// page's files, "other" for none.
std::string route_label(const std::string& path);
// "GET, HEAD, OPTIONS", "POST, OPTIONS" (as LibreTranslate's Flask lists
// them) or both; "" for a path no route answers. `page`: the page is served.
std::string allowed_methods(const std::string& path, bool page);
// "GET / (its page, unless --no-ui), POST /translate, ... and GET /spec": for the 404's words.
std::string route_list();

}  // namespace nmt::serve
