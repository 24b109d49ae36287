#include "serve/file_store.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>

#include "serve/http_error.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

namespace fs = std::filesystem;

std::string random_hex(size_t bytes) {
  static thread_local std::random_device device;
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes; i += 4) {
    uint32_t word = device();
    for (int k = 0; k < 8; ++k, word >>= 4) out += digits[word & 15];
  }
  return out.substr(0, bytes * 2);
}

}  // namespace

void check_upload_name(const std::string& name) {
  if (name.empty()) throw HttpError(400, "The uploaded file has no name; send it with a file name such as text.txt.");
  if (name.size() > 200) throw HttpError(400, "The uploaded file's name is longer than 200 bytes.");
  const bool path_chars = name.find_first_of("/\\") != std::string::npos;
  const bool control = std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  if (path_chars || control || name.front() == '.') {
    throw HttpError(400, "The uploaded file's name \"" + (control ? std::string("?") : name) +
                             "\" holds path or control characters or starts with a dot; send a plain name such as "
                             "text.txt.");
  }
}

std::string file_extension(const std::string& name) {
  const size_t dot = name.rfind('.');
  std::string ext = dot == std::string::npos ? "" : name.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

FileStore::FileStore(FileStoreOptions options) : options_(options) {
  std::string pattern = (fs::temp_directory_path() / "nmt-files-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw Error("Cannot make a folder for translated files under " +
                                                  fs::temp_directory_path().string() + ".", kExitOther);
  folder_ = pattern;
}

FileStore::~FileStore() {
  std::error_code ignored;
  fs::remove_all(folder_, ignored);
}

void FileStore::expire() {
  const auto now = std::chrono::steady_clock::now();
  while (!files_.empty() && (static_cast<int64_t>(files_.size()) > options_.max_files ||
                             now - files_.front().at > std::chrono::seconds(options_.keep_seconds))) {
    std::error_code ignored;
    fs::remove(fs::path(folder_) / files_.front().name, ignored);
    files_.pop_front();
  }
}

std::string FileStore::put(const std::string& upload_name, const std::string& bytes) {
  check_upload_name(upload_name);
  const std::string name = random_hex(16) + "." + upload_name;
  write_file_atomically((fs::path(folder_) / name).string(), bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  files_.push_back({name, std::chrono::steady_clock::now()});
  expire();
  return name;
}

std::optional<std::string> FileStore::get(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  expire();
  // Only names this store made and still keeps: never a path of the client's choosing.
  const bool kept = std::any_of(files_.begin(), files_.end(), [&](const Stored& s) { return s.name == name; });
  if (!kept) return std::nullopt;
  try {
    return read_file_bytes((fs::path(folder_) / name).string());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace nmt::serve
