// Where checkpoints live in a run directory and which one a resume takes:
// checkpoints/step-NNNNNNNNN.pt, with last.pt and best.pt as hard links to
// the newest and the best (copies where links are not possible).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "storage/checkpoint.h"
#include "storage/model_dir.h"

namespace nmt::train {

class CheckpointManager {
 public:
  // keep_last: step files kept (older ones are removed after each save).
  CheckpointManager(storage::ModelDirPaths paths, int64_t keep_last);

  // Writes the step file (atomically), points last.pt (and best.pt when
  // `best`) at it, and removes step files beyond keep_last. Returns its path.
  std::string save(const storage::Checkpoint& checkpoint, bool best);

  // Paths of the newest `n` step checkpoints (fewer when there are fewer), newest first.
  std::vector<std::string> newest_step_files(int64_t n) const;

  // The newest checkpoint that reads back intact; corrupt ones are reported
  // through `warn` and skipped. Empty when there is none; `found_any` tells
  // whether there were checkpoint files at all.
  std::optional<storage::Checkpoint> load_newest_intact(const std::function<void(const std::string&)>& warn,
                                                      bool* found_any = nullptr) const;

 private:
  void point(const std::string& link_path, const std::string& target) const;
  void prune() const;
  void remove_stale_temporaries() const;

  storage::ModelDirPaths paths_;
  int64_t keep_last_;
};

}  // namespace nmt::train
