#include "serve/access_control.h"

#include <fstream>
#include <sstream>

#include "serve/http_error.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

bool same_key(const std::string& a, const std::string& b) {
  // Every byte of the longer is looked at, so the time does not tell a common prefix or the length.
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

int64_t current_minute() {
  using namespace std::chrono;
  return duration_cast<minutes>(system_clock::now().time_since_epoch()).count();
}

constexpr size_t kMaxTrackedClients = 100000;  // older windows are dropped beyond it

}  // namespace

void AccessOptions::validate() const {
  if (!api_key.empty() && !api_keys_file.empty()) {
    throw UsageError("Give --api-key or --api-keys, not both: put the one key in the file instead.");
  }
  if (require_api_key && api_keys_file.empty()) throw UsageError("--require-api-key needs --api-keys FILE.");
  if (req_limit < 0) throw UsageError("--req-limit must not be negative (got " + std::to_string(req_limit) + ").");
}

std::vector<ApiKey> read_api_keys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DataError("Cannot read the API keys file " + path + ".");
  std::vector<ApiKey> keys;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t hash = line.find('#');
    std::istringstream fields(line.substr(0, hash));
    ApiKey k;
    if (!(fields >> k.key)) continue;  // blank or comment
    const std::string where = path + " line " + std::to_string(number);
    std::string limit, right, extra;
    if (fields >> limit) {
      if (limit.find_first_not_of("0123456789") != std::string::npos || limit.size() > 9) {
        throw DataError(where + ": the requests per minute (the second field) must be a whole number.");
      }
      k.per_minute = std::stoll(limit);
    }
    if (fields >> right) {
      if (right != "review") throw DataError(where + ": the third field may only be \"review\", found \"" + right + "\".");
      k.review = true;
    }
    if (fields >> extra) {
      throw DataError(where + ": expected \"KEY [REQUESTS_PER_MINUTE] [review]\", found more.");
    }
    for (const auto& other : keys) {
      if (other.key == k.key) throw DataError(where + ": this key is listed twice.");
    }
    keys.push_back(std::move(k));
  }
  if (keys.empty()) throw DataError("The API keys file " + path + " lists no key.");
  return keys;
}

AccessControl::AccessControl(const AccessOptions& options) {
  options.validate();
  if (!options.api_key.empty()) {
    keys_.push_back({options.api_key, 0, true});
    required_ = true;
  } else if (!options.api_keys_file.empty()) {
    keys_ = read_api_keys(options.api_keys_file);
    required_ = options.require_api_key;
  }
  client_limit_ = options.req_limit;
}

const ApiKey* AccessControl::find(const std::string& key) const {
  const ApiKey* found = nullptr;
  for (const auto& k : keys_) {
    if (same_key(k.key, key) && !found) found = &k;  // no early exit
  }
  return found;
}

void AccessControl::admit(const std::string& key, const std::string& client, int64_t cost) {
  if (!key.empty() && keys_enabled()) {
    const ApiKey* k = find(key);
    if (!k) throw HttpError(403, "Invalid API key");
    count("k:" + std::to_string(k - keys_.data()), k->per_minute, cost);
    return;
  }
  if (required_) throw HttpError(400, "Please contact the server operator to get an API key");
  count("a:" + client, client_limit_, cost);
}

void AccessControl::admit_reviewer(const std::string& key) const {
  const ApiKey* k = key.empty() ? nullptr : find(key);
  if (!k || !k->review) {
    throw HttpError(403, "This route needs an API key with the review right (--api-key, or a line "
                         "\"KEY REQUESTS_PER_MINUTE review\" in --api-keys FILE).");
  }
}

void AccessControl::count(const std::string& who, int64_t per_minute, int64_t cost) {
  if (per_minute <= 0) return;
  const int64_t minute = current_minute();
  std::lock_guard<std::mutex> lock(mutex_);
  if (minute != swept_minute_) {  // past minutes' windows go, once a minute
    for (auto it = windows_.begin(); it != windows_.end();) it = it->second.minute < minute ? windows_.erase(it) : ++it;
    swept_minute_ = minute;
  }
  if (windows_.size() >= kMaxTrackedClients && !windows_.count(who)) {
    throw HttpError(429, "Slowdown: too many clients this minute");  // the map stays bounded
  }
  Window& w = windows_[who];
  if (w.minute != minute) w = {minute, 0};
  if (w.count + cost > per_minute) {
    throw HttpError(429, "Slowdown: " + std::to_string(per_minute) + " per 1 minute");
  }
  w.count += cost;
}

}  // namespace nmt::serve
