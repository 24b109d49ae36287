// A translated file's media type, by its name (the routes themselves: serve/http_routes.h).
#pragma once

#include <string>

namespace nmt::serve {

// By extension (".docx"): the media type of a download.
std::string download_type(const std::string& ext);

}  // namespace nmt::serve
