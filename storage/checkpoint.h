// Training checkpoints: weights, optimizer, schedule, step, epoch, data
// position, RNG states and the config, in one file with a format version and
// CRC32 checksums, written whole or not at all.
//
// Layout: "NMTCKPT\n", uint64 little-endian header length, header JSON
// (format_version, config, state, sections with size and crc32, header_crc of
// everything else in the header), then the section payloads in order.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "storage/state_dict.h"

namespace nmt::storage {

// 2: the optimizer section in our own layout (storage/optimizer_bytes.h);
// version 1 files, with LibTorch's optimizer archive, still load.
constexpr int kCheckpointFormatVersion = 2;

struct Checkpoint {
  nlohmann::json config;   // the resolved config it was trained with
  StateDict weights;       // reference-format names
  nlohmann::json state;    // step, epoch, data iterator, schedule, progress
  std::string optimizer;   // serialized optimizer archive (may be empty)
  std::vector<torch::Tensor> rng;  // generator states: CPU first, then CUDA devices

  int64_t step() const { return state.value("step", int64_t{0}); }
};

// Atomic write (temporary file, fsync, rename).
void save_checkpoint(const std::string& path, const Checkpoint& checkpoint);

// What to read: everything (resuming, averaging), or the weights alone
// (translating: the optimizer's state, two thirds of a training checkpoint,
// is skipped, neither read nor held).
enum class CheckpointParts { kAll, kWeights };

// Verifies magic, version and the checksums of what it reads. A truncated,
// corrupt or foreign file is a DataError naming it; a newer format version
// says to upgrade.
Checkpoint load_checkpoint(const std::string& path, CheckpointParts parts = CheckpointParts::kAll);

// Cheap check used when choosing what to resume from: reads and verifies the
// whole file, returns false (with the reason) instead of throwing.
bool checkpoint_is_intact(const std::string& path, std::string* reason = nullptr);

}  // namespace nmt::storage
