#include "serve/server_options.h"

#include "util/error.h"

namespace nmt::serve {

void ServerOptions::validate() const {
  if (host.empty()) throw UsageError("--host must not be empty.");
  if (port < 0 || port > 65535) throw UsageError("--port must lie in 0..65535 (got " + std::to_string(port) + ").");
  if (max_body_bytes < 64) throw UsageError("--max-request-bytes must be at least 64.");
  if (limits.max_chars < 1) throw UsageError("--max-request-chars must be at least 1.");
  if (limits.max_sentences < 1) throw UsageError("--max-request-sentences must be at least 1.");
  if (http_threads < 1) throw UsageError("--http-threads must be at least 1.");
  if (timeout_seconds < 1) throw UsageError("--timeout must be at least 1 second.");
  batching.validate();
  access.validate();
  if (files.max_files < 1) throw UsageError("--max-files must be at least 1.");
  if (files.keep_seconds < 1) throw UsageError("--file-keep-seconds must be at least 1.");
  if (limits.max_sentences > batching.queue_sentences) {
    throw UsageError("--max-request-sentences (" + std::to_string(limits.max_sentences) +
                     ") must not exceed --queue-sentences (" + std::to_string(batching.queue_sentences) +
                     "), or such a request could never be queued.");
  }
}

}  // namespace nmt::serve
