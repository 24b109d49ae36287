// A document's zip container (.docx, .odt, .pptx, .odp, .epub) read and
// rewritten in memory with libzip. libzip rather than minizip: Debian's
// libzip is maintained upstream (minizip 1.1 is zlib's old contrib code),
// reads from and writes to memory, reports each entry's uncompressed size
// from the central directory before anything is inflated (so a zip bomb is
// refused unread), and copies the entries we leave alone byte for byte,
// compressed data, order and all, when it writes the archive back.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace nmt::document {

struct ArchiveLimits {
  int64_t max_entries = 10000;
  int64_t max_entry_bytes = 64ll << 20;    // one entry, uncompressed
  int64_t max_total_bytes = 256ll << 20;   // all entries, uncompressed
  int64_t max_ratio = 200;                 // uncompressed / compressed, for entries over 1 MiB
};

class ZipArchive {
 public:
  // Reads the central directory of `bytes` (a whole archive). A DataError
  // naming `name` when it is not a zip archive, is truncated or damaged, or
  // exceeds `limits` (entries, sizes, a compression ratio only a bomb has).
  ZipArchive(std::string bytes, const std::string& name, ArchiveLimits limits = {});
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  // Entry names in the archive's order.
  const std::vector<std::string>& names() const { return names_; }
  bool has(const std::string& entry) const;
  // An entry's bytes, inflated and checked against its CRC; a DataError when it is damaged.
  std::string read(const std::string& entry) const;
  // Replaces an entry's bytes in the archive `bytes()` writes.
  void replace(const std::string& entry, std::string content);
  // Adds an entry (or replaces it, where the archive has one); `stored`:
  // uncompressed, for readers that cannot inflate (Marian's .npz reader).
  void put(const std::string& entry, std::string content, bool stored = false);
  // The bytes of an archive without entries, to put() entries into.
  static std::string empty_archive();
  // The archive with the replaced entries; every other entry copied as it was.
  std::string bytes() const;

 private:
  struct Handle;
  std::string source_, name_;
  std::unique_ptr<Handle> zip_;
  std::vector<std::string> names_;
  std::map<std::string, std::string> replaced_;
  std::set<std::string> added_;  // entries of replaced_ the source does not have
  std::set<std::string> stored_;  // entries written uncompressed
};

}  // namespace nmt::document
