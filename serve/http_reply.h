// How the server's handlers answer: JSON bodies, JSON errors, and the one
// place where a handler's exceptions become those errors.
#pragma once

#include <httplib.h>

#include <string>

#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include "serve/batcher.h"
#include "serve/http_error.h"

namespace nmt::serve {

inline constexpr const char* kJson = "application/json";

inline void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // replace: a stray invalid byte must not turn an answer into an exception.
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kJson);
}

inline void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, {{"error", message}});
}

// Runs a handler body; refusals and failures become JSON errors.
template <typename Body>
void guarded(httplib::Response& res, Body&& body) {
  try {
    body();
  } catch (const HttpError& e) {
    send_error(res, e.status(), e.what());
    if (e.status() == 413) res.set_header("Connection", "close");  // the rest of the body was not read
  } catch (const QueueFull& e) {
    send_error(res, 429, e.what());
    res.set_header("Retry-After", "1");
  } catch (const ShuttingDown& e) {
    send_error(res, 503, e.what());
  } catch (const c10::Error& e) {  // without the C++ backtrace what() carries
    send_error(res, 500, std::string("The translation failed: ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    send_error(res, 500, std::string("The translation failed: ") + e.what());
  }
}

}  // namespace nmt::serve
