#include "storage/checkpoint.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>
#include <vector>

#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kMagic[] = "NMTCKPT\n";
constexpr size_t kMagicSize = 8;

uint32_t crc_of(std::string_view bytes) {
  return static_cast<uint32_t>(::crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()),
                                       static_cast<uInt>(bytes.size())));
}

std::string tensors_to_bytes(const std::vector<torch::Tensor>& tensors) {
  StateDict d;
  for (size_t i = 0; i < tensors.size(); ++i) d[std::to_string(i)] = tensors[i];
  return state_dict_to_bytes(d);
}

// Keys "0" .. "n-1" (as tensors_to_bytes writes them).
std::vector<torch::Tensor> tensors_from_bytes(const std::string& bytes, const std::string& origin) {
  StateDict d = state_dict_from_bytes(bytes, origin);
  std::vector<torch::Tensor> out(d.size());
  for (size_t i = 0; i < out.size(); ++i) {
    auto it = d.find(std::to_string(i));
    if (it == d.end()) {
      throw DataError("Checkpoint " + origin + " has a damaged list of tensors (no entry " + std::to_string(i) + ").");
    }
    out[i] = it->second;
  }
  return out;
}

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw DataError("Checkpoint " + path + " is corrupt or truncated (" + why + "); use another checkpoint.");
}

}  // namespace

// The sections go to the file one after the other, never joined in memory:
// joining them held the checkpoint's bytes twice more (its size again, and
// the string's growth) on top of the training's memory.
void save_checkpoint(const std::string& path, const Checkpoint& c) {
  const std::string weights = state_dict_to_bytes(c.weights), rng = tensors_to_bytes(c.rng);
  const std::vector<std::pair<std::string, std::string_view>> sections = {
      {"weights", weights}, {"optimizer", c.optimizer}, {"rng", rng}};
  json header;
  header["format_version"] = kCheckpointFormatVersion;
  header["config"] = c.config;
  header["state"] = c.state;
  for (const auto& [name, bytes] : sections) {
    header["sections"].push_back({{"name", name}, {"size", bytes.size()}, {"crc32", crc_of(bytes)}});
  }
  header["header_crc32"] = crc_of(header.dump());
  const std::string head = header.dump();
  std::string prefix(kMagic, kMagicSize);
  uint64_t n = head.size();
  for (int i = 0; i < 8; ++i) prefix.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  prefix += head;
  std::vector<std::string_view> parts = {prefix};
  for (const auto& section : sections) parts.push_back(section.second);
  write_file_atomically(path, parts);
}

namespace {

// Reads a checkpoint file front to back without holding more than the
// section being parsed; every length is checked against what is left first.
class CheckpointReader {
 public:
  explicit CheckpointReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw DataError("Cannot open checkpoint " + path + ".");
    std::error_code ec;
    left_ = fs::file_size(path, ec);
    if (ec) throw DataError("Cannot read the size of checkpoint " + path + ": " + ec.message() + ".");
  }

  std::string read(uint64_t n, const std::string& what) {
    if (n > left_) corrupt(path_, what + " runs past the end of the file");
    std::string bytes(n, '\0');
    if (!in_.read(bytes.data(), static_cast<std::streamsize>(n))) corrupt(path_, "cannot read " + what);
    left_ -= n;
    return bytes;
  }

  void skip(uint64_t n, const std::string& what) {
    if (n > left_) corrupt(path_, what + " runs past the end of the file");
    if (!in_.seekg(static_cast<std::streamoff>(n), std::ios::cur)) corrupt(path_, "cannot read " + what);
    left_ -= n;
  }

  uint64_t left() const { return left_; }

 private:
  std::string path_;
  std::ifstream in_;
  uint64_t left_ = 0;
};

json read_header(CheckpointReader& reader, const std::string& path) {
  const std::string magic = reader.left() >= kMagicSize + 8 ? reader.read(kMagicSize, "magic") : std::string();
  if (magic != std::string(kMagic, kMagicSize)) {
    throw DataError("File " + path + " is not a checkpoint of this program (wrong magic bytes).");
  }
  const std::string length = reader.read(8, "header length");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(static_cast<unsigned char>(length[i])) << (8 * i);
  json header;
  try {
    header = json::parse(reader.read(n, "header"));
  } catch (const json::exception&) {
    corrupt(path, "unreadable header");
  }
  if (!header.is_object() || !header.value("format_version", json(0)).is_number_integer() ||
      !header.value("header_crc32", json(0u)).is_number_unsigned()) {
    corrupt(path, "malformed header");
  }
  const int version = header.value("format_version", 0);
  if (version > kCheckpointFormatVersion) {
    throw DataError("Checkpoint " + path + " has format version " + std::to_string(version) +
                    ", newer than this program understands (" + std::to_string(kCheckpointFormatVersion) +
                    "); upgrade the trainer/translator to read it.");
  }
  const uint32_t header_crc = header.value("header_crc32", uint32_t{0});
  header.erase("header_crc32");
  if (crc_of(header.dump()) != header_crc) corrupt(path, "header checksum mismatch");
  return header;
}

}  // namespace

Checkpoint load_checkpoint(const std::string& path, CheckpointParts parts) {
  CheckpointReader reader(path);
  json header = read_header(reader, path);
  Checkpoint c;
  try {
    c.config = header.at("config");
    c.state = header.at("state");
    for (const auto& s : header.at("sections")) {
      const std::string name = s.at("name");
      const uint64_t size = s.at("size");
      if (parts == CheckpointParts::kWeights && name != "weights") {
        reader.skip(size, "section '" + name + "'");
        continue;
      }
      std::string payload = reader.read(size, "section '" + name + "'");
      if (crc_of(payload) != s.at("crc32").get<uint32_t>()) corrupt(path, "checksum mismatch in '" + name + "'");
      if (name == "weights") c.weights = state_dict_from_bytes(payload, path);
      else if (name == "optimizer") c.optimizer = std::move(payload);
      else if (name == "rng") c.rng = tensors_from_bytes(payload, path);
    }
  } catch (const json::exception& e) {
    corrupt(path, std::string("malformed header: ") + e.what());
  }
  if (reader.left() != 0) corrupt(path, "trailing bytes after the last section");
  if (c.weights.empty()) corrupt(path, "no weights");
  if (!c.config.is_object() || !c.state.is_object() || !c.state.value("step", json(0u)).is_number_unsigned()) {
    corrupt(path, "malformed config or training state");
  }
  return c;
}

bool checkpoint_is_intact(const std::string& path, std::string* reason) {
  try {
    load_checkpoint(path);
    return true;
  } catch (const std::exception& e) {
    if (reason) *reason = e.what();
    return false;
  }
}

}  // namespace nmt::storage
