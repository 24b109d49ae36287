#include "interop/ct2_model_file.h"

#include <cstring>

#include <torch/torch.h>

#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::interop {
namespace {

constexpr uint32_t kNewestVersion = 6;
constexpr uint32_t kMaxRank = 8;
constexpr float kVersion1Int16Scale = 1000.0f;  // CTranslate2's global int16 scale

// Bounds-checked reads over the file's bytes; every failure names the file
// and the offset where the expected field would have started.
class ByteReader {
 public:
  ByteReader(const std::string& bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  template <typename T>
  T value(const char* what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what), sizeof(T));
    return v;
  }
  std::string str(const char* what) {
    const size_t at = pos_;
    const uint16_t length = value<uint16_t>(what);
    if (length == 0) fail(at, std::string("an empty string for ") + what);
    const char* p = take(length, what);
    return std::string(p, length - 1);
  }
  const char* take(size_t n, const char* what) {
    if (n > bytes_.size() - pos_) {
      fail(pos_, "the file ends inside " + std::string(what) + " (needs " + std::to_string(n) + " bytes, " +
                     std::to_string(bytes_.size() - pos_) + " left)");
    }
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  [[noreturn]] void fail(size_t at, const std::string& why) const {
    throw DataError("The CTranslate2 model " + path_ + " is truncated or corrupt at byte " + std::to_string(at) +
                    ": " + why + ".");
  }
  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  const std::string& path_;
  size_t pos_ = 0;
};

torch::ScalarType type_of(uint8_t id, ByteReader& in, size_t at, const std::string& name) {
  switch (id) {
    case 0: return torch::kFloat;
    case 1: return torch::kChar;
    case 2: return torch::kShort;
    case 3: return torch::kInt;
    case 4: return torch::kHalf;
    case 5: return torch::kBFloat16;
    default: in.fail(at, "variable " + name + " has the unknown type " + std::to_string(id));
  }
}

torch::ScalarType type_of_item_size(uint8_t size, ByteReader& in, size_t at, const std::string& name) {
  switch (size) {
    case 4: return torch::kFloat;
    case 2: return torch::kShort;
    case 1: return torch::kChar;
    default: in.fail(at, "variable " + name + " has items of the unknown width " + std::to_string(size));
  }
}

// Version 1 files carry OpenNMT-tf's names; CTranslate2 renames them so, the
// first occurrence of each pattern, in this order
// ("transformer/decoder/layer_0/multi_head/conv1d_2/kernel:0" becomes
// "decoder/layer_0/attention/linear_2/weight").
std::string version1_name(std::string name) {
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = name.find(from);
    if (at != std::string::npos) name.replace(at, from.size(), to);
  };
  replace("transformer/", "");
  replace(":0", "");
  replace("w_embs", "embeddings/weight");
  replace("kernel", "weight");
  replace("LayerNorm", "layer_norm");
  replace("dense", "projection");
  replace("conv1d_", "linear_");
  replace("conv1d", "linear_0");
  if (name.find("encoder") != std::string::npos) {
    replace("multi_head", "self_attention");
  } else {
    replace("masked_multi_head", "self_attention");
    replace("multi_head", "attention");
  }
  return name;
}

void read_variable(ByteReader& in, Ct2ModelFile& out) {
  const size_t at = in.pos();
  std::string name = in.str("a variable's name");
  if (out.version == 1) name = version1_name(std::move(name));
  const uint8_t rank = in.value<uint8_t>("a variable's rank");
  if (rank > kMaxRank) in.fail(at, "variable " + name + " has rank " + std::to_string(rank));
  std::vector<int64_t> shape(rank);
  uint64_t count = 1;
  for (auto& d : shape) {
    d = in.value<uint32_t>("a variable's shape");
    count *= static_cast<uint64_t>(d);
    if (count > in.left()) in.fail(at, "variable " + name + " has a shape larger than the file");
  }
  torch::ScalarType type;
  uint64_t bytes;
  if (out.version >= 4) {
    type = type_of(in.value<uint8_t>("a variable's type"), in, at, name);
    bytes = in.value<uint32_t>("a variable's byte count");
  } else {
    const uint8_t item = in.value<uint8_t>("a variable's item size");
    type = type_of_item_size(item, in, at, name);
    bytes = uint64_t{in.value<uint32_t>("a variable's item count")} * item;
  }
  const uint64_t expected = count * c10::elementSize(type);
  if (bytes != expected) {
    in.fail(at, "variable " + name + " holds " + std::to_string(bytes) + " bytes but its shape and type need " +
                    std::to_string(expected));
  }
  const char* data = in.take(bytes, "a variable's data");
  auto tensor = torch::empty(shape, torch::TensorOptions().dtype(type));
  if (bytes > 0) std::memcpy(tensor.data_ptr(), data, bytes);
  if (!out.variables.emplace(std::move(name), std::move(tensor)).second) in.fail(at, "a variable's name repeats");
}

uint8_t type_id(torch::ScalarType type, const std::string& name) {
  switch (type) {
    case torch::kFloat: return 0;
    case torch::kChar: return 1;
    case torch::kShort: return 2;
    case torch::kInt: return 3;
    case torch::kHalf: return 4;
    case torch::kBFloat16: return 5;
    default: throw DataError("The variable " + name + " is of a type CTranslate2's model.bin cannot hold.");
  }
}

class ByteWriter {
 public:
  template <typename T>
  void value(T v) {
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void str(const std::string& s) {
    if (s.size() + 1 > 0xFFFF) throw DataError("The name " + s.substr(0, 64) + "... is too long for model.bin.");
    value<uint16_t>(static_cast<uint16_t>(s.size() + 1));
    bytes_ += s;
    bytes_ += '\0';
  }
  void u32(uint64_t v, const std::string& what) {
    if (v > 0xFFFFFFFFull) throw DataError(what + " does not fit model.bin's 32 bits.");
    value<uint32_t>(static_cast<uint32_t>(v));
  }
  void raw(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

}  // namespace

std::string ct2_model_file_bytes(const Ct2ModelFile& file) {
  ByteWriter out;
  out.value<uint32_t>(kNewestVersion);
  out.str(file.spec);
  out.value<uint32_t>(file.revision);
  out.u32(file.variables.size(), "The variable count");
  for (const auto& [name, tensor] : file.variables) {
    const auto t = tensor.contiguous();
    out.str(name);
    if (t.dim() > static_cast<int64_t>(kMaxRank)) throw DataError("The variable " + name + " has too many dimensions.");
    out.value<uint8_t>(static_cast<uint8_t>(t.dim()));
    for (int64_t d : t.sizes()) out.u32(static_cast<uint64_t>(d), "A dimension of " + name);
    out.value<uint8_t>(type_id(t.scalar_type(), name));
    out.u32(t.nbytes(), "The size of " + name);
    out.raw(t.data_ptr(), t.nbytes());
  }
  out.u32(file.aliases.size(), "The alias count");
  for (const auto& [alias, target] : file.aliases) {
    out.str(alias);
    out.str(target);
  }
  return out.take();
}

bool Ct2ModelFile::has(const std::string& name) const {
  if (variables.count(name)) return true;
  const auto a = aliases.find(name);
  return a != aliases.end() && variables.count(a->second);
}

const torch::Tensor& Ct2ModelFile::raw(const std::string& name) const {
  auto it = variables.find(name);
  if (it == variables.end()) {
    const auto a = aliases.find(name);
    if (a != aliases.end()) it = variables.find(a->second);
  }
  if (it == variables.end()) throw DataError("The " + engine + " model " + path + " has no variable " + name + ".");
  return it->second;
}

torch::Tensor Ct2ModelFile::float32(const std::string& name) const {
  const torch::Tensor& v = raw(name);
  const auto type = v.scalar_type();
  if (type == torch::kFloat) return v;
  if (type == torch::kHalf || type == torch::kBFloat16 || type == torch::kInt) return v.to(torch::kFloat);
  torch::Tensor scale;
  // An alias's scale is the aliased variable's.
  const std::string scale_name = (variables.count(name) ? name : aliases.at(name)) + "_scale";
  if (has(scale_name)) {
    scale = raw(scale_name).to(torch::kFloat);
  } else if (type == torch::kShort) {
    scale = torch::tensor(kVersion1Int16Scale);
  } else {
    throw DataError("The " + engine + " model " + path + " holds " + name + " in int8 without its scale " + scale_name +
                    ".");
  }
  if (scale.dim() == 1 && v.dim() == 2) {
    if (scale.size(0) != v.size(0)) {
      throw DataError("The " + engine + " model " + path + " has " + std::to_string(scale.size(0)) + " scales for the " +
                      std::to_string(v.size(0)) + " rows of " + name + ".");
    }
    scale = scale.unsqueeze(1);
  } else if (scale.numel() != 1) {
    throw DataError("The " + engine + " model " + path + " has a scale of shape " + std::to_string(scale.numel()) +
                    " values for " + name + ", which it cannot apply.");
  }
  // As CTranslate2 dequantizes: times the scale's reciprocal, in float32.
  return v.to(torch::kFloat) * scale.reciprocal();
}

std::string Ct2ModelFile::text(const std::string& name, const std::string& fallback) const {
  if (!has(name)) return fallback;
  const torch::Tensor& v = raw(name);
  if (v.scalar_type() != torch::kChar || v.dim() != 1) {
    throw DataError("The " + engine + " model " + path + " holds " + name + " in a form other than text.");
  }
  return std::string(static_cast<const char*>(v.data_ptr()), static_cast<size_t>(v.numel()));
}

double Ct2ModelFile::scalar(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const torch::Tensor& v = raw(name);
  if (v.numel() != 1) throw DataError("The " + engine + " model " + path + " has a non-scalar " + name + ".");
  return v.to(torch::kDouble).item<double>();
}

Ct2ModelFile read_ct2_model_file(const std::string& path) { return parse_ct2_model_file(read_file_bytes(path), path); }

Ct2ModelFile parse_ct2_model_file(const std::string& bytes, const std::string& path) {
  ByteReader in(bytes, path);
  Ct2ModelFile out;
  out.path = path;
  out.version = in.value<uint32_t>("the binary version");
  if (out.version < 1 || out.version > kNewestVersion) {
    throw DataError("The CTranslate2 model " + path + " has binary version " + std::to_string(out.version) +
                    "; versions 1 to " + std::to_string(kNewestVersion) + " are supported.");
  }
  if (out.version >= 2) {
    out.spec = in.str("the spec's name");
    out.revision = in.value<uint32_t>("the spec's revision");
  }
  const uint32_t count = in.value<uint32_t>("the variable count");
  for (uint32_t i = 0; i < count; ++i) read_variable(in, out);
  if (out.version >= 3) {
    const uint32_t n = in.value<uint32_t>("the alias count");
    for (uint32_t i = 0; i < n; ++i) {
      const size_t at = in.pos();
      std::string alias = in.str("an alias");
      std::string target = in.str("an alias's variable");
      if (!out.variables.count(target)) in.fail(at, "alias " + alias + " names the absent variable " + target);
      out.aliases.emplace(std::move(alias), std::move(target));
    }
  }
  if (in.left() != 0) in.fail(in.pos(), std::to_string(in.left()) + " bytes follow the last entry");
  return out;
}

}  // namespace nmt::interop
