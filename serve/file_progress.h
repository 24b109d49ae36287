// How far the files being translated have come, for the page's progress
// line: POST /translate_file with a `progress_id` field (ours; LibreTranslate
// has none) counts its parts as they are done, and GET
// /translate_file/progress/ID answers {"done", "total"} meanwhile and for a
// while after. Bounded: the oldest entries go first past a thousand.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace nmt::serve {

struct Progress {
  int64_t done = 0, total = 0;
  bool finished = false;
};

class FileProgress {
 public:
  static constexpr size_t kMaxEntries = 1000;

  // Whether `id` is one a client may choose: 8 to 64 letters, digits and '-'.
  static bool valid_id(const std::string& id);

  void update(const std::string& id, int64_t done, int64_t total);
  void finish(const std::string& id);
  std::optional<Progress> get(const std::string& id) const;

 private:
  struct Entry {
    Progress progress;
    std::chrono::steady_clock::time_point at;
  };
  void forget_old();  // with mutex_ held

  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace nmt::serve
