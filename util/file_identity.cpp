#include "util/file_identity.h"

#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "util/error.h"

namespace nmt {

void hash_file_identity(Fnv1a& h, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw DataError("Cannot open " + path + ": no such file.");
  std::error_code ec;
  h.text(std::filesystem::absolute(path, ec).lexically_normal().string());
  h.value(static_cast<int64_t>(st.st_size));
  h.value(static_cast<int64_t>(st.st_mtim.tv_sec));
  h.value(static_cast<int64_t>(st.st_mtim.tv_nsec));
}

void hash_file_bytes(Fnv1a& h, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("Cannot read " + path + ".");
  std::vector<char> buffer(1 << 16);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    h.bytes(buffer.data(), static_cast<size_t>(in.gcount()));
  }
}

std::string hex_digest(uint64_t digest) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, digest);
  return hex;
}

}  // namespace nmt
