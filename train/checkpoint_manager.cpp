#include "train/checkpoint_manager.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "util/atomic_file.h"

namespace nmt::train {
namespace fs = std::filesystem;
namespace {

// Step files, newest first (names sort by step thanks to zero padding).
std::vector<fs::path> step_files(const std::string& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("step-", 0) == 0 && entry.path().extension() == ".pt") out.push_back(entry.path());
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

}  // namespace

CheckpointManager::CheckpointManager(storage::ModelDirPaths paths, int64_t keep_last)
    : paths_(std::move(paths)), keep_last_(keep_last) {
  fs::create_directories(paths_.checkpoints);
  remove_stale_temporaries();
}

void CheckpointManager::remove_stale_temporaries() const {
  // Left by a process killed while writing; never mistaken for checkpoints
  // (they do not end in .pt), but they would pile up.
  for (const auto& entry : fs::directory_iterator(paths_.checkpoints)) {
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) fs::remove(entry.path());
  }
}

void CheckpointManager::point(const std::string& link_path, const std::string& target) const {
  // A hard link renamed into place: readers see the old or the new file, never half of one.
  const std::string tmp = link_path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  if (::link(target.c_str(), tmp.c_str()) == 0 && ::rename(tmp.c_str(), link_path.c_str()) == 0) return;
  ::unlink(tmp.c_str());
  write_file_atomically(link_path, read_file_bytes(target));
}

void CheckpointManager::prune() const {
  auto files = step_files(paths_.checkpoints);
  for (size_t i = static_cast<size_t>(keep_last_); i < files.size(); ++i) fs::remove(files[i]);
}

std::string CheckpointManager::save(const storage::Checkpoint& checkpoint, bool best) {
  const std::string path = paths_.step_checkpoint(checkpoint.step());
  storage::save_checkpoint(path, checkpoint);
  point(paths_.last, path);
  if (best) point(paths_.best, path);
  prune();
  return path;
}

std::vector<std::string> CheckpointManager::newest_step_files(int64_t n) const {
  std::vector<std::string> out;
  for (const auto& path : step_files(paths_.checkpoints)) {
    if (static_cast<int64_t>(out.size()) >= n) break;
    out.push_back(path.string());
  }
  return out;
}

std::optional<storage::Checkpoint> CheckpointManager::load_newest_intact(
    const std::function<void(const std::string&)>& warn, bool* found_any) const {
  auto candidates = step_files(paths_.checkpoints);
  if (fs::exists(paths_.last)) candidates.push_back(paths_.last);
  if (found_any) *found_any = !candidates.empty();
  std::optional<storage::Checkpoint> newest;
  for (const auto& path : candidates) {
    try {
      auto c = storage::load_checkpoint(path.string());
      if (!newest || c.step() > newest->step()) newest = std::move(c);
      // Step files come newest first: the first intact one wins unless last.pt is newer.
      if (path != fs::path(paths_.last)) break;
    } catch (const std::exception& e) {
      warn(std::string("skipping checkpoint: ") + e.what());
    }
  }
  return newest;
}

}  // namespace nmt::train
