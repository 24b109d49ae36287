// The translated files of POST /translate_file, served by GET
// /download_file/NAME. They live in a folder of the server's own (made under
// the system's temporary folder, removed when the server stops); each has a
// random 128-bit name prefix, is removed after a time limit, and at most a
// number of them are kept (the oldest goes first). Nothing is written
// outside that folder: a name is checked before it is used.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace nmt::serve {

struct FileStoreOptions {
  int64_t max_files = 100;         // translated files kept at most
  int64_t keep_seconds = 30 * 60;  // how long one is kept
};

class FileStore {
 public:
  explicit FileStore(FileStoreOptions options);
  ~FileStore();  // removes the folder
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  // Writes `bytes` as a new file named "<random hex>.<upload_name>" and returns that name.
  std::string put(const std::string& upload_name, const std::string& bytes);
  // The bytes of a stored file, or nothing when `name` is not one (unknown, expired, or not a name we make).
  std::optional<std::string> get(const std::string& name);
  const std::string& folder() const { return folder_; }

 private:
  void expire();  // with mutex_ held

  struct Stored {
    std::string name;
    std::chrono::steady_clock::time_point at;
  };
  FileStoreOptions options_;
  std::string folder_;
  std::mutex mutex_;
  std::deque<Stored> files_;  // oldest first
};

// An uploaded file's name when it is safe to keep as the last part of a
// stored name: no path characters ('/', '\\'), no control characters, not
// starting with '.', at most 200 bytes. Otherwise an HttpError 400.
void check_upload_name(const std::string& name);

// The name's extension in lower case with its dot (".html"), or "".
std::string file_extension(const std::string& name);

}  // namespace nmt::serve
