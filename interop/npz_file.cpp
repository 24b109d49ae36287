#include "interop/npz_file.h"

#include <cstring>
#include <regex>

#include <torch/torch.h>

#include "document/zip_archive.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::interop {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kMaxHeaderBytes = 1 << 16;
constexpr int64_t kMaxRank = 8;

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw DataError("The NumPy array " + what + " " + why + ".");
}

torch::ScalarType type_of(const std::string& descr, const std::string& what) {
  if (descr == "<f4") return torch::kFloat;
  if (descr == "<f2") return torch::kHalf;
  if (descr == "|i1" || descr == "<i1") return torch::kChar;
  if (descr == "|u1" || descr == "<u1") return torch::kByte;
  if (descr == "<i4") return torch::kInt;
  bad(what, "has the type '" + descr + "' (float32, float16, int8, uint8 and int32 are read)");
}

// The value of 'key': ... in NumPy's header dict, as written (a quoted
// string without its quotes, True/False, or a parenthesized tuple).
std::string header_field(const std::string& header, const std::string& key, const std::string& what) {
  static const std::regex kField(R"('([a-z_]+)'\s*:\s*('[^']*'|True|False|\([0-9,\s]*\)))");
  for (std::sregex_iterator it(header.begin(), header.end(), kField), end; it != end; ++it) {
    if ((*it)[1] != key) continue;
    std::string v = (*it)[2];
    return v.front() == '\'' ? v.substr(1, v.size() - 2) : v;
  }
  bad(what, "has no '" + key + "' in its header");
}

std::vector<int64_t> shape_of(const std::string& tuple, const std::string& what) {
  std::vector<int64_t> shape;
  static const std::regex kDim(R"([0-9]+)");
  for (std::sregex_iterator it(tuple.begin(), tuple.end(), kDim), end; it != end; ++it) {
    const std::string digits = it->str();
    if (digits.size() > 12) bad(what, "has a dimension of " + digits);
    shape.push_back(std::stoll(digits));
  }
  if (static_cast<int64_t>(shape.size()) > kMaxRank) bad(what, "has more than 8 dimensions");
  return shape;
}

}  // namespace

const torch::Tensor& NpzFile::at(const std::string& name) const {
  const auto it = arrays.find(name);
  if (it == arrays.end()) throw DataError("The model " + path + " has no parameter " + name + ".");
  return it->second;
}

torch::Tensor parse_npy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < kMagicBytes + 4 || std::memcmp(bytes.data(), kMagic, kMagicBytes) != 0) {
    bad(what, "does not start as an .npy array does (\\x93NUMPY)");
  }
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t at = 8, header_bytes = 0;
  if (major == 1) {
    uint16_t n;
    std::memcpy(&n, bytes.data() + at, 2);
    header_bytes = n;
    at += 2;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(what, "ends inside its header");
    uint32_t n;
    std::memcpy(&n, bytes.data() + at, 4);
    header_bytes = n;
    at += 4;
  } else {
    bad(what, "has the unknown format version " + std::to_string(major));
  }
  if (header_bytes > kMaxHeaderBytes || header_bytes > bytes.size() - at) bad(what, "ends inside its header");
  const std::string header = bytes.substr(at, header_bytes);
  at += header_bytes;
  const auto type = type_of(header_field(header, "descr", what), what);
  if (header_field(header, "fortran_order", what) != "False") bad(what, "is in Fortran order");
  const auto shape = shape_of(header_field(header, "shape", what), what);
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > (int64_t{1} << 40) / d) bad(what, "is too large");
    count *= d;
  }
  const size_t data_bytes = static_cast<size_t>(count) * torch::elementSize(type);
  if (bytes.size() - at != data_bytes) {
    bad(what, "holds " + std::to_string(bytes.size() - at) + " bytes of data where its shape needs " +
                  std::to_string(data_bytes));
  }
  auto t = torch::empty(shape, torch::TensorOptions().dtype(type));
  if (data_bytes > 0) std::memcpy(t.data_ptr(), bytes.data() + at, data_bytes);
  return t;
}

NpzFile parse_npz(std::string bytes, const std::string& path) {
  // A model's arrays are large and stored, not deflated: limits for models,
  // not for documents, with the ratio check kept for a bomb.
  document::ArchiveLimits limits;
  limits.max_entries = 100000;
  limits.max_entry_bytes = int64_t{16} << 30;
  limits.max_total_bytes = int64_t{64} << 30;
  const document::ZipArchive zip(std::move(bytes), path, limits);
  NpzFile out;
  out.path = path;
  for (const auto& entry : zip.names()) {
    const std::string suffix = ".npy";
    if (entry.size() <= suffix.size() || entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) != 0) {
      throw DataError("The model " + path + " holds " + entry + ", which is not a NumPy array (.npy).");
    }
    const std::string name = entry.substr(0, entry.size() - suffix.size());
    out.arrays[name] = parse_npy(zip.read(entry), name + " in " + path);
  }
  return out;
}

NpzFile read_npz(const std::string& path) { return parse_npz(read_file_bytes(path), path); }

std::string npy_bytes(const torch::Tensor& tensor) {
  const auto t = tensor.detach().to(torch::kCPU).contiguous();
  std::string descr;
  switch (t.scalar_type()) {
    case torch::kFloat: descr = "<f4"; break;
    case torch::kHalf: descr = "<f2"; break;
    case torch::kChar: descr = "|i1"; break;
    case torch::kByte: descr = "|u1"; break;
    case torch::kInt: descr = "<i4"; break;
    default: throw DataError(std::string("An array of ") + c10::toString(t.scalar_type()) + " cannot be written as .npy.");
  }
  std::string shape;  // "2, 3"; "3," for one dimension, as Python writes a tuple
  for (int64_t i = 0; i < t.dim(); ++i) shape += (i ? ", " : "") + std::to_string(t.size(i));
  if (t.dim() == 1) shape += ",";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // NumPy pads the header with spaces so that the data starts at a multiple of 64.
  while ((kMagicBytes + 4 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out(kMagic, kMagicBytes);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel()) * t.element_size());
  return out;
}

std::string npz_bytes(const std::map<std::string, torch::Tensor>& arrays) {
  document::ZipArchive zip(document::ZipArchive::empty_archive(), "model.npz");
  for (const auto& [name, t] : arrays) zip.put(name + ".npy", npy_bytes(t), true);
  return zip.bytes();
}

}  // namespace nmt::interop
