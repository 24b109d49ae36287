// The server's page (serve/page/: HTML, CSS, JavaScript), built into the
// executable by cmake/embed_page.cmake: GET / serves index.html, GET /NAME the
// others, each with a strict Content-Security-Policy (no inline script or
// style, nothing from another host). `translator --serve --no-ui` leaves them out.
#pragma once

#include <string_view>
#include <vector>

namespace nmt::serve {

struct PageFile {
  const char* path;          // "/index.html", "/page.js", ...
  const char* content_type;  // with its charset
  std::string_view body;
};

const std::vector<PageFile>& page_files();

// The policy sent with every page file: scripts, styles, fetches and images
// from this server only; no frames, no plugins, no form posts elsewhere.
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

}  // namespace nmt::serve
