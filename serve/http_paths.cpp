#include "serve/http_paths.h"

#include <utility>

#include "serve/page_files.h"

namespace nmt::serve {

std::string route_label(const std::string& path) {
  for (const char* known : {"/translate", "/languages", "/detect", "/frontend/settings", "/suggest", "/translate_file",
                            "/translator/translate", "/translator/models", "/health", "/ready", "/metrics", "/spec"}) {
    if (path == known) return path;
  }
  if (path.rfind("/download_file/", 0) == 0) return "/download_file";
  if (path.rfind("/translate_file/progress/", 0) == 0) return "/translate_file/progress";
  if (path == "/" || path == "/page.js" || path == "/page.css") return "/page";
  return "other";
}

std::string allowed_methods(const std::string& path, bool page) {
  constexpr const char* kGet = "GET, HEAD, OPTIONS";
  constexpr const char* kPost = "POST, OPTIONS";
  for (const char* p : {"/translate", "/detect", "/translate_file", "/suggest", "/translator/translate"}) {
    if (path == p) return kPost;
  }
  for (const char* p : {"/languages", "/frontend/settings", "/health", "/ready", "/metrics", "/spec", "/translator/models"}) {
    if (path == p) return kGet;
  }
  for (const std::string prefix : {"/download_file/", "/translate_file/progress/"}) {
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() && path.find('/', prefix.size()) == std::string::npos) {
      return kGet;
    }
  }
  if (page) {
    for (const PageFile& file : page_files()) {
      if (path == (file.path == std::string("/index.html") ? "/" : file.path)) return kGet;
    }
  }
  return "";
}

std::string download_type(const std::string& ext) {
  static const std::pair<const char*, const char*> types[] = {
      {".html", "text/html; charset=utf-8"},
      {".htm", "text/html; charset=utf-8"},
      {".md", "text/markdown; charset=utf-8"},
      {".srt", "application/x-subrip; charset=utf-8"},
      {".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
      {".pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
      {".odt", "application/vnd.oasis.opendocument.text"},
      {".odp", "application/vnd.oasis.opendocument.presentation"},
      {".epub", "application/epub+zip"}};
  for (const auto& [e, type] : types) {
    if (ext == e) return type;
  }
  return "text/plain; charset=utf-8";
}

}  // namespace nmt::serve
