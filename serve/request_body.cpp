#include "serve/request_body.h"

#include <httplib.h>

#include <algorithm>

#include "serve/http_error.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

void add_field(json& fields, const std::string& key, const std::string& value) {
  if (!fields.contains(key)) {
    fields[key] = value;
    return;
  }
  if (!fields[key].is_array()) fields[key] = json::array({fields[key]});
  fields[key].push_back(value);
}

json parse_json(const std::string& body) {
  try {
    return json::parse(body);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw HttpError(400, std::string("Malformed JSON: ") + e.what());
  }
}

// application/x-www-form-urlencoded fields as a JSON object of strings.
json parse_form(const std::string& body) {
  httplib::Params params;
  httplib::detail::parse_query_text(body, params);
  json out = json::object();
  for (const auto& [key, value] : params) add_field(out, key, value);
  return out;
}

HttpError too_large(int64_t max) {
  return HttpError(413, "The request body is larger than this server's limit of " + std::to_string(max) + " bytes.");
}

// A body there is, and not so large that it is not worth reading (the
// connection is closed instead).
void check_body(const httplib::Request& req, int64_t max_body_bytes) {
  // Without a body (or a length) httplib would wait for the connection to close to find the body's end.
  const bool chunked = req.get_header_value("Transfer-Encoding") == "chunked";
  if (!chunked && req.get_header_value<uint64_t>("Content-Length") == 0) {
    throw HttpError(400, "The request has no body; send the texts to translate as JSON.");
  }
  if (req.get_header_value<uint64_t>("Content-Length") > static_cast<uint64_t>(drain_limit(max_body_bytes))) {
    throw too_large(max_body_bytes);
  }
}

// Reads the whole plain body; past `max` it keeps reading but drops the bytes.
std::string read_plain(const httplib::ContentReader& reader, int64_t max) {
  std::string body;
  bool over = false;
  const bool ok = reader([&](const char* data, size_t n) {
    if (over || body.size() + n > static_cast<size_t>(max)) {
      over = true;
      body.clear();
      body.shrink_to_fit();
      return true;
    }
    body.append(data, n);
    return true;
  });
  if (over) throw too_large(max);
  if (!ok) throw HttpError(400, "The request body could not be read.");
  return body;
}

RequestBody read_multipart(const httplib::ContentReader& reader, int64_t max) {
  RequestBody out;
  std::optional<UploadedFile> part;  // the part being read
  int64_t total = 0;
  bool over = false, two_files = false;
  auto finish_part = [&] {
    if (!part) return;
    if (part->filename.empty()) {
      add_field(out.fields, part->field, part->content);
    } else if (out.file) {
      two_files = true;
    } else {
      out.file = std::move(*part);
    }
    part.reset();
  };
  const bool ok = reader(
      [&](const httplib::MultipartFormData& header) {
        finish_part();
        part = UploadedFile{header.name, header.filename, ""};
        return true;
      },
      [&](const char* data, size_t n) {
        total += static_cast<int64_t>(n);
        if (total > max) over = true;
        if (!over && part) part->content.append(data, n);
        return true;
      });
  finish_part();
  if (over) throw too_large(max);
  if (!ok) throw HttpError(400, "The multipart request body could not be read.");
  if (two_files) throw HttpError(400, "Send one file per request.");
  return out;
}

}  // namespace

int64_t drain_limit(int64_t max_body_bytes) { return std::max<int64_t>(max_body_bytes * 8, 64 << 20); }

RequestBody read_request_body(const httplib::Request& req, const httplib::ContentReader& reader,
                              int64_t max_body_bytes) {
  check_body(req, max_body_bytes);
  if (req.is_multipart_form_data()) return read_multipart(reader, max_body_bytes);
  const std::string body = read_plain(reader, max_body_bytes);
  const std::string type = req.get_header_value("Content-Type");
  RequestBody out;
  if (type.rfind("application/x-www-form-urlencoded", 0) == 0) {
    out.fields = parse_form(body);
  } else {  // application/json, or a client that names no type or another one
    out.fields = parse_json(body);
  }
  return out;
}

json read_json_body(const httplib::Request& req, const httplib::ContentReader& reader, int64_t max_body_bytes) {
  check_body(req, max_body_bytes);
  if (req.is_multipart_form_data()) {
    read_multipart(reader, max_body_bytes);  // read to the end first, so the connection stays in step
    throw HttpError(415, "multipart/form-data is not supported here; send JSON.");
  }
  return parse_json(read_plain(reader, max_body_bytes));
}

}  // namespace nmt::serve
