// "Fails with this status": the HTTP status of the serve::HttpError a piece
// of code throws, for the server's tests that need no HTTP.
#pragma once

#include "serve/http_error.h"

namespace nmt::test {

// The status of the HttpError `body` throws; 0 when it throws none.
template <typename Body>
int refusal_status(Body&& body) {
  try {
    body();
  } catch (const serve::HttpError& e) {
    return e.status();
  }
  return 0;
}

}  // namespace nmt::test
