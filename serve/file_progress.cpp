#include "serve/file_progress.h"

#include <algorithm>
#include <cctype>

namespace nmt::serve {
namespace {

constexpr auto kKeepFinished = std::chrono::minutes(10);

}  // namespace

bool FileProgress::valid_id(const std::string& id) {
  return id.size() >= 8 && id.size() <= 64 &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

void FileProgress::update(const std::string& id, int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  forget_old();
  Entry& e = entries_[id];
  e.progress.done = done;
  e.progress.total = total;
  e.at = std::chrono::steady_clock::now();
}

void FileProgress::finish(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  it->second.progress.finished = true;
  it->second.progress.done = it->second.progress.total;
  it->second.at = std::chrono::steady_clock::now();
}

std::optional<Progress> FileProgress::get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second.progress;
}

void FileProgress::forget_old() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.progress.finished && now - it->second.at > kKeepFinished ? entries_.erase(it) : std::next(it);
  }
  while (entries_.size() >= kMaxEntries) {
    const auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                         [](const auto& a, const auto& b) { return a.second.at < b.second.at; });
    entries_.erase(oldest);
  }
}

}  // namespace nmt::serve
