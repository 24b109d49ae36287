// API keys and request limits as LibreTranslate has them (and which keys may
// review stored suggestions: "review" after the limit in the keys file).
// Keys come from --api-key (one key, required, unlimited) or --api-keys FILE (a key and its
// requests per minute on each line; a request without a key is served under
// --req-limit per client address, unless --require-api-key). A limit counts
// requests per calendar minute (a fixed window, as LibreTranslate's limiter;
// a batch of n texts counts n); the request past it gets 429 "Slowdown: N
// per 1 minute". An empty key is no key. Keys are compared in constant time
// and never logged.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace nmt::serve {

struct AccessOptions {
  std::string api_key;         // --api-key: the one key, required
  std::string api_keys_file;   // --api-keys: "KEY [REQUESTS_PER_MINUTE] [review]" lines, '#' comments
  bool require_api_key = false;  // with --api-keys: refuse requests without a key
  int64_t req_limit = 0;       // requests per minute per client address without a key; 0: no limit
  void validate() const;       // UsageError naming the option
};

struct ApiKey {
  std::string key;
  int64_t per_minute = 0;  // 0: no limit
  bool review = false;     // may read and change the stored suggestions (--api-key's key may)
};

// The keys of an --api-keys file; a DataError naming the file and line.
std::vector<ApiKey> read_api_keys(const std::string& path);

class AccessControl {
 public:
  explicit AccessControl(const AccessOptions& options);  // reads the keys file
  // Admits a request carrying `key` ("" or absent: none) from `client` (its
  // address) that counts as `cost` requests (LibreTranslate counts each text
  // of a batch), or throws HttpError 403 (wrong key), 400 (a key is
  // required) or 429 (a limit is passed).
  void admit(const std::string& key, const std::string& client, int64_t cost = 1);
  // For the routes that read or change stored suggestions: an HttpError 403
  // unless `key` is a key with the review right. Not counted against limits.
  void admit_reviewer(const std::string& key) const;
  bool keys_enabled() const { return !keys_.empty(); }
  bool key_required() const { return required_; }
  int64_t client_limit() const { return client_limit_; }

 private:
  struct Window {
    int64_t minute = -1;
    int64_t count = 0;
  };
  const ApiKey* find(const std::string& key) const;  // every key compared, each in constant time
  void count(const std::string& who, int64_t per_minute, int64_t cost);

  std::vector<ApiKey> keys_;
  bool required_ = false;
  int64_t client_limit_ = 0;
  std::mutex mutex_;
  int64_t swept_minute_ = -1;
  std::unordered_map<std::string, Window> windows_;  // "k:N" (key N) or "a:ADDRESS"
};

}  // namespace nmt::serve
