// A request's body as the LibreTranslate API takes it: JSON, a URL-encoded
// form, or a multipart form (with at most one uploaded file), as one JSON
// object of fields. A body over the limit is read to its end and dropped
// (up to a drain limit), so that the client has sent it all and reads the
// 413 instead of a broken connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace httplib {
struct Request;
class ContentReader;
}  // namespace httplib

namespace nmt::serve {

struct UploadedFile {
  std::string field;     // the form field's name ("file")
  std::string filename;  // as the client named it
  std::string content;
};

struct RequestBody {
  nlohmann::json fields = nlohmann::json::object();  // a form's fields are strings; a repeated one an array
  std::optional<UploadedFile> file;
};

// Bodies this much larger than the limit are still read to the end before the 413.
int64_t drain_limit(int64_t max_body_bytes);

// Reads and parses the body (a body of another declared type is read as
// JSON); HttpError 400 (none, malformed JSON, unreadable, two files) or 413
// (over `max_body_bytes`).
RequestBody read_request_body(const httplib::Request& req, const httplib::ContentReader& reader,
                              int64_t max_body_bytes);

// JSON only (OpenNMT-py's API): the parsed body; a multipart body is a 415.
nlohmann::json read_json_body(const httplib::Request& req, const httplib::ContentReader& reader,
                              int64_t max_body_bytes);

}  // namespace nmt::serve
