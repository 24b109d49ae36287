// How `translator --serve` listens, what it accepts, and how it batches.
#pragma once

#include <cstdint>
#include <string>

#include "serve/access_control.h"
#include "serve/batcher.h"
#include "serve/file_store.h"
#include "serve/text_translation.h"

namespace nmt::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0: any free port (tests)
  AccessOptions access;     // API keys and request limits
  std::string cors_origin;  // empty: no CORS headers
  bool ui = true;           // the page at / (--no-ui: off)
  int64_t max_body_bytes = 1 << 20;
  RequestLimits limits;
  int http_threads = 128;    // connections served at once (each keep-alive connection holds one)
  int timeout_seconds = 30;  // reading a request, writing an answer
  BatcherOptions batching;
  FileStoreOptions files;  // POST /translate_file's results
  std::string suggestions;  // --suggestions: the SQLite file POST /suggest stores into; "": suggestions off
  void validate() const;  // UsageError naming the option
};

}  // namespace nmt::serve
