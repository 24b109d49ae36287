#include "storage/torch_archive.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include "util/error.h"

namespace nmt::storage {
namespace {

// LibTorch's in-memory readers (torch::pickle_load's, MemoryReadAdapter)
// copy whatever range the zip reader asks for; this one hands over only the
// bytes that exist, and the zip reader takes a short read as the error it is.
class BoundedReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BoundedReader(const std::string& bytes) : bytes_(bytes) {}
  size_t size() const override { return bytes_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= bytes_.size()) return 0;
    n = std::min<uint64_t>(n, bytes_.size() - pos);
    std::memcpy(buf, bytes_.data() + pos, n);
    return n;
  }

 private:
  const std::string& bytes_;
};

// How a pickle opcode's argument is laid out (Python's pickletools).
enum class Arg { kNone, kFixed, kLine, kTwoLines, kSized, kMemoPut, kDecimalMemoPut, kFrame, kStop, kUnknown };

struct Opcode {
  Arg arg = Arg::kUnknown;
  size_t bytes = 0;  // kFixed: the argument's size; kSized, kMemoPut: the size of its length or index
};

Opcode opcode(unsigned char op) {
  switch (op) {
    case '.': return {Arg::kStop};
    case '(': case '0': case '1': case '2': case 'N': case 'Q': case 'R': case 'a': case 'b': case 'd':
    case '}': case 'e': case 'l': case ']': case 'o': case 's': case 't': case ')': case 'u': case 0x81:
    case 0x85: case 0x86: case 0x87: case 0x88: case 0x89: case 0x8f: case 0x90: case 0x91: case 0x92:
    case 0x93: case 0x94: case 0x97: case 0x98:
      return {Arg::kNone};
    case 'K': case 'h': case 0x80: case 0x82: return {Arg::kFixed, 1};
    case 'M': case 0x83: return {Arg::kFixed, 2};
    case 'J': case 'j': case 0x84: return {Arg::kFixed, 4};
    case 'G': return {Arg::kFixed, 8};
    case 'F': case 'I': case 'L': case 'P': case 'S': case 'V': case 'g': return {Arg::kLine};
    case 'c': case 'i': return {Arg::kTwoLines};
    case 'U': case 'C': case 0x8a: case 0x8c: return {Arg::kSized, 1};
    case 'T': case 'X': case 'B': case 0x8b: return {Arg::kSized, 4};
    case 0x8d: case 0x8e: case 0x96: return {Arg::kSized, 8};
    case 'q': return {Arg::kMemoPut, 1};
    case 'r': return {Arg::kMemoPut, 4};
    case 'p': return {Arg::kDecimalMemoPut};
    case 0x95: return {Arg::kFrame, 8};
    default: return {Arg::kUnknown};
  }
}

class PickleScanner {
 public:
  PickleScanner(const std::string& pickle, const std::string& origin) : p_(pickle), origin_(origin) {}

  void run() {
    while (at_ < p_.size()) {
      const auto op = static_cast<unsigned char>(p_[at_++]);
      const Opcode o = opcode(op);
      switch (o.arg) {
        case Arg::kStop: return;
        case Arg::kNone: break;
        case Arg::kFixed: skip(o.bytes); break;
        case Arg::kLine: line(); break;
        case Arg::kTwoLines: line(), line(); break;
        case Arg::kSized: skip(little_endian(o.bytes)); break;
        case Arg::kMemoPut: memo(little_endian(o.bytes)); break;
        case Arg::kDecimalMemoPut: memo(decimal(line())); break;
        case Arg::kFrame: check_room(little_endian(o.bytes)); break;
        case Arg::kUnknown: fail("unknown opcode " + std::to_string(op) + " at byte " + std::to_string(at_ - 1));
      }
    }
    fail("it ends without STOP");
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw DataError("Cannot read weights from " + origin_ + ": its pickle is malformed (" + why + ").");
  }
  void check_room(uint64_t n) const {
    if (n > p_.size() - at_) fail("an argument at byte " + std::to_string(at_) + " runs past its end");
  }
  void skip(uint64_t n) {
    check_room(n);
    at_ += n;
  }
  uint64_t little_endian(size_t n) {
    check_room(n);
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t{static_cast<unsigned char>(p_[at_ + k])} << (8 * k);
    at_ += n;
    return v;
  }
  std::string line() {
    const size_t end = p_.find('\n', at_);
    if (end == std::string::npos) fail("a text argument at byte " + std::to_string(at_) + " never ends");
    std::string s = p_.substr(at_, end - at_);
    at_ = end + 1;
    return s;
  }
  uint64_t decimal(const std::string& s) const {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) {
      fail("a memo index is not a number");
    }
    return std::stoull(s);
  }
  // The unpickler grows its memo table to the index; a real pickle numbers
  // its memo entries from 0, each taking at least two bytes.
  void memo(uint64_t index) const {
    if (index >= p_.size()) fail("memo index " + std::to_string(index) + " is beyond what it could hold");
  }

  const std::string& p_;
  const std::string& origin_;
  size_t at_ = 0;
};

}  // namespace

void check_pickle_opcodes(const std::string& pickle, const std::string& origin) {
  PickleScanner(pickle, origin).run();
}

// What torch::jit::readArchiveAndTensors does for torch::pickle_load, with
// the checks above.
TorchArchive read_torch_archive(const std::string& bytes, const std::string& origin) {
  TorchArchive archive;
  try {
    caffe2::serialize::PyTorchStreamReader zip(std::make_shared<BoundedReader>(bytes));
    at::DataPtr pickle_data;
    size_t pickle_size = 0;
    std::tie(pickle_data, pickle_size) = zip.getRecord("data.pkl");
    const std::string pickle(static_cast<const char*>(pickle_data.get()), pickle_size);
    pickle_data.clear();
    check_pickle_opcodes(pickle, origin);
    size_t read = 0;
    auto reader = [&](char* buffer, size_t n) -> size_t {
      n = std::min(n, pickle.size() - read);
      std::memcpy(buffer, pickle.data() + read, n);
      read += n;
      return n;
    };
    auto read_record = [&](const std::string& key) {
      auto [data, size] = zip.getRecord("data/" + key);
      archive.record_bytes[data.get()] = size;
      return std::move(data);
    };
    torch::jit::Unpickler unpickler(reader, /*type_resolver=*/nullptr, /*obj_loader=*/nullptr, read_record,
                                    /*device=*/c10::nullopt);
    unpickler.set_version(zip.version());
    archive.value = unpickler.parse_ivalue();
  } catch (const Error&) {
    throw;
  } catch (const std::exception&) {
    throw DataError("Cannot read weights from " + origin + ": the file is truncated or not a torch.save file.");
  }
  return archive;
}

}  // namespace nmt::storage
