// Finds and loads libnmt_spm_bridge.so into its own linker namespace, once
// per process, and exposes its C functions. The library itself never links
// SentencePiece (its protobuf clashes with libtorch's; docs/sentencepiece_bridge.md).
#pragma once

#include <string>

#include "vocab/spm_bridge_abi.h"

namespace nmt::vocab {

struct SpmBridge {
  std::string path;  // where it was loaded from
  decltype(&nmt_spm_free) free_ = nullptr;
  decltype(&nmt_spm_train) train = nullptr;
  decltype(&nmt_spm_load) load = nullptr;
  decltype(&nmt_spm_unload) unload = nullptr;
  decltype(&nmt_spm_piece_size) piece_size = nullptr;
  decltype(&nmt_spm_unk_id) unk_id = nullptr;
  decltype(&nmt_spm_pad_id) pad_id = nullptr;
  decltype(&nmt_spm_bos_id) bos_id = nullptr;
  decltype(&nmt_spm_eos_id) eos_id = nullptr;
  decltype(&nmt_spm_id_to_piece) id_to_piece = nullptr;
  decltype(&nmt_spm_encode_ids) encode_ids = nullptr;
  decltype(&nmt_spm_encode_offsets) encode_offsets = nullptr;
  decltype(&nmt_spm_encode_pieces) encode_pieces = nullptr;
  decltype(&nmt_spm_decode_ids) decode_ids = nullptr;

  // Turns a message the bridge allocated into a string and frees it.
  std::string take_error(char* error) const;
};

// The bridge, loaded on first use from $NMT_SPM_BRIDGE (a file or a folder),
// else beside the running executable, else <exe dir>/../lib/nmt/. Throws
// nmt::Error (exit 1) naming every place it looked when it cannot be loaded.
const SpmBridge& spm_bridge();

}  // namespace nmt::vocab
