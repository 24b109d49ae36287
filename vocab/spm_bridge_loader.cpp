#include "vocab/spm_bridge_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "util/error.h"

namespace nmt::vocab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBridgeFile = "libnmt_spm_bridge.so";

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("NMT_SPM_BRIDGE"); env != nullptr && *env != '\0') {
    std::error_code ec;
    fs::path p(env);
    paths.push_back(fs::is_directory(p, ec) ? (p / kBridgeFile).string() : p.string());
  }
  const std::string dir = executable_dir();
  if (!dir.empty()) {
    paths.push_back((fs::path(dir) / kBridgeFile).string());
    paths.push_back((fs::path(dir) / ".." / "lib" / "nmt" / kBridgeFile).lexically_normal().string());
  }
  return paths;
}

template <typename Fn>
void resolve(void* handle, const std::string& path, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (out == nullptr) {
    throw Error("The SentencePiece bridge " + path + " lacks the function " + name +
                    "; it belongs to another build. Rebuild the project.",
                kExitOther);
  }
}

SpmBridge load_from(void* handle, const std::string& path) {
  decltype(&nmt_spm_abi_version) version = nullptr;
  resolve(handle, path, "nmt_spm_abi_version", version);
  if (version() != NMT_SPM_BRIDGE_ABI_VERSION) {
    throw Error("The SentencePiece bridge " + path + " has interface version " +
                    std::to_string(version()) + ", this program needs " +
                    std::to_string(NMT_SPM_BRIDGE_ABI_VERSION) + ". Rebuild the project.",
                kExitOther);
  }
  SpmBridge b;
  b.path = path;
  resolve(handle, path, "nmt_spm_free", b.free_);
  resolve(handle, path, "nmt_spm_train", b.train);
  resolve(handle, path, "nmt_spm_load", b.load);
  resolve(handle, path, "nmt_spm_unload", b.unload);
  resolve(handle, path, "nmt_spm_piece_size", b.piece_size);
  resolve(handle, path, "nmt_spm_unk_id", b.unk_id);
  resolve(handle, path, "nmt_spm_pad_id", b.pad_id);
  resolve(handle, path, "nmt_spm_bos_id", b.bos_id);
  resolve(handle, path, "nmt_spm_eos_id", b.eos_id);
  resolve(handle, path, "nmt_spm_id_to_piece", b.id_to_piece);
  resolve(handle, path, "nmt_spm_encode_ids", b.encode_ids);
  resolve(handle, path, "nmt_spm_encode_offsets", b.encode_offsets);
  resolve(handle, path, "nmt_spm_encode_pieces", b.encode_pieces);
  resolve(handle, path, "nmt_spm_decode_ids", b.decode_ids);
  return b;
}

SpmBridge load_bridge() {
  std::string tried;
  for (const std::string& path : candidate_paths()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried += "\n  " + path + " (not found)";
      continue;
    }
    // A fresh namespace keeps SentencePiece's protobuf away from libtorch's.
    void* handle = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += "\n  " + path + " (" + (why ? why : "cannot be loaded") + ")";
      continue;
    }
    return load_from(handle, path);  // kept loaded for the life of the process
  }
  throw Error("Cannot load the SentencePiece bridge " + std::string(kBridgeFile) +
                  "; set NMT_SPM_BRIDGE to its path. Looked at:" + tried,
              kExitOther);
}

}  // namespace

std::string SpmBridge::take_error(char* error) const {
  if (error == nullptr) return "unknown SentencePiece error";
  std::string message(error);
  free_(error);
  return message;
}

const SpmBridge& spm_bridge() {
  static const SpmBridge bridge = load_bridge();
  return bridge;
}

}  // namespace nmt::vocab
