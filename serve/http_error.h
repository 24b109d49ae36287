// A request the server refuses: the HTTP status and a sentence for the
// client, sent as {"error": "..."}.
#pragma once

#include <stdexcept>
#include <string>

namespace nmt::serve {

class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace nmt::serve
