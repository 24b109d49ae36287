// Keys of files derived from other files (id caches, vocabularies): a
// 64-bit FNV-1a digest of what they depend on. A file is known by its
// absolute path, size and modification time (reading it whole would cost as
// much as the work the cache saves), a small one by its bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nmt {

class Fnv1a {
 public:
  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001B3ull;
  }
  void text(const std::string& s) {
    bytes(s.data(), s.size());
    bytes("\0", 1);
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
  uint64_t digest() const { return h_; }

 private:
  uint64_t h_ = 0xCBF29CE484222325ull;
};

// Path, size and modification time; throws DataError when the file is missing.
void hash_file_identity(Fnv1a& h, const std::string& path);
// Every byte; throws DataError when the file cannot be read.
void hash_file_bytes(Fnv1a& h, const std::string& path);
// The digest as 16 hex digits.
std::string hex_digest(uint64_t digest);

}  // namespace nmt
