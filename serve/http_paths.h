// What the HTTP server knows of its paths, apart from their handlers: the
// label a request is counted under in /metrics, the methods a path takes
// (405's Allow header, OPTIONS), and a translated file's media type.
#pragma once

#include <string>

namespace nmt::serve {

// "/translate", ..., "/download_file", "/page", or "other".
std::string route_label(const std::string& path);
// "GET, HEAD, OPTIONS" or "POST, OPTIONS" as LibreTranslate's Flask lists
// them; "" for a path no route answers. `page`: the page's paths are served.
std::string allowed_methods(const std::string& path, bool page);
// By extension (".docx"): the media type of a download.
std::string download_type(const std::string& ext);

}  // namespace nmt::serve
