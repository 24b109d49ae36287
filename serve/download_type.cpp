#include "serve/download_type.h"

#include <utility>

namespace nmt::serve {

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
