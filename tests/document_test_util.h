// Shared by the document tests: archives built in memory with libzip, a
// minimal .docx around a body, and "fails with this message".
#pragma once

#include <zip.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"

namespace nmt::test {

// A zip archive of `entries` (name, bytes), deflated unless `stored`.
inline std::string zip_of(const std::vector<std::pair<std::string, std::string>>& entries, bool stored = false) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_t* zip = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (!zip) throw std::runtime_error("zip_of: cannot open an archive in memory");
  zip_source_keep(buffer);
  for (const auto& [name, bytes] : entries) {
    zip_source_t* data = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
    const zip_int64_t i = zip_file_add(zip, name.c_str(), data, ZIP_FL_ENC_UTF_8);
    if (stored) zip_set_file_compression(zip, static_cast<zip_uint64_t>(i), ZIP_CM_STORE, 0);
  }
  if (zip_close(zip) != 0) throw std::runtime_error("zip_of: cannot write the archive");
  std::string out;
  zip_source_open(buffer);
  zip_source_seek(buffer, 0, SEEK_END);
  out.resize(static_cast<size_t>(zip_source_tell(buffer)));
  zip_source_seek(buffer, 0, SEEK_SET);
  zip_source_read(buffer, out.data(), out.size());
  zip_source_close(buffer);
  zip_source_free(buffer);
  return out;
}

constexpr const char* kWordNamespaces =
    "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\" "
    "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

inline std::string document_xml(const std::string& body) {
  return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><w:document ") + kWordNamespaces +
         "><w:body>" + body + "</w:body></w:document>";
}

// A .docx holding `body` (w:p elements) and a picture.
inline std::string docx_of(const std::string& body, const std::string& picture = "\x89PNG not really") {
  return zip_of({{"[Content_Types].xml", "<?xml version=\"1.0\"?><Types/>"},
                 {"word/document.xml", document_xml(body)},
                 {"word/media/image1.png", picture}});
}

// The message of the DataError `body` throws; "" when it throws none.
template <typename Body>
std::string data_error_of(Body&& body) {
  try {
    body();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace nmt::test
