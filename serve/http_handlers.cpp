// The handlers of TranslationServer (serve/http_server.h) that answer with
// more than JSON: a translated file's download; and who a request comes from.
#include <cctype>

#include <httplib.h>

#include "serve/file_store.h"
#include "serve/http_error.h"
#include "serve/download_type.h"
#include "serve/http_server.h"

namespace nmt::serve {

void TranslationServer::handle_download(const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.matches[1];
  auto bytes = files_.get(name);
  if (!bytes) throw HttpError(404, "No translated file " + name + " (files are kept for a limited time).");
  const std::string download = name.substr(name.find('.') + 1);  // without the random prefix
  // An ASCII fallback name (quotes and non-ASCII as '_') and the UTF-8 name percent-encoded (RFC 6266).
  std::string ascii = download, encoded;
  for (char& ch : ascii) {
    if (static_cast<unsigned char>(ch) >= 0x80 || ch == '"' || ch == '\\' || ch == ';') ch = '_';
  }
  for (const unsigned char ch : download) {
    static const char* hex = "0123456789ABCDEF";
    if (std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-') {
      encoded += static_cast<char>(ch);
    } else {
      encoded += {'%', hex[ch >> 4], hex[ch & 15]};
    }
  }
  res.set_header("Content-Disposition", "attachment; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded);
  // A translated page must not run in the server's origin, where the page keeps its API key.
  res.set_header("Content-Security-Policy", "sandbox");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(std::move(*bytes), download_type(file_extension(download)));
}

Caller TranslationServer::caller(const httplib::Request& req, const RequestBody* body) const {
  Caller c;
  c.address = req.remote_addr;
  if (body) {
    const auto key = body->fields.find("api_key");
    if (key != body->fields.end() && key->is_string()) c.key = key->get<std::string>();
  }
  const std::string authorization = req.get_header_value("Authorization");
  if (authorization.rfind("Bearer ", 0) == 0) c.key = authorization.substr(7);
  return c;
}

}  // namespace nmt::serve
