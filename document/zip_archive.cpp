#include "document/zip_archive.h"

#include <zip.h>

#include <algorithm>
#include <cstdio>

#include "util/error.h"

namespace nmt::document {
namespace {

// An archive opened over bytes in memory; `flags` as zip_open's.
zip_t* open_in_memory(const std::string& bytes, int flags, zip_source_t** source_out, std::string& why) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (!source) {
    why = zip_error_strerror(&error);
    zip_error_fini(&error);
    return nullptr;
  }
  zip_t* zip = zip_open_from_source(source, flags, &error);
  if (!zip) {
    why = zip_error_strerror(&error);
    zip_source_free(source);
    zip_error_fini(&error);
    return nullptr;
  }
  zip_error_fini(&error);
  if (source_out) *source_out = source;
  return zip;
}

}  // namespace

struct ZipArchive::Handle {
  zip_t* zip = nullptr;
  ~Handle() {
    if (zip) zip_discard(zip);
  }
};

ZipArchive::ZipArchive(std::string bytes, const std::string& name, ArchiveLimits limits)
    : source_(std::move(bytes)), name_(name), zip_(std::make_unique<Handle>()) {
  std::string why;
  zip_->zip = open_in_memory(source_, ZIP_RDONLY | ZIP_CHECKCONS, nullptr, why);
  if (!zip_->zip) throw DataError(name_ + " is not a readable zip archive (" + why + "); is it truncated or of another format?");
  const zip_int64_t n = zip_get_num_entries(zip_->zip, 0);
  if (n > limits.max_entries) {
    throw DataError(name_ + " holds " + std::to_string(n) + " entries; documents of at most " +
                    std::to_string(limits.max_entries) + " are translated.");
  }
  int64_t total = 0;
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(zip_->zip, static_cast<zip_uint64_t>(i), 0, &st) != 0 || !st.name) {
      throw DataError(name_ + " has a damaged entry " + std::to_string(i) + " in its directory.");
    }
    const auto size = static_cast<int64_t>(st.size), packed = static_cast<int64_t>(st.comp_size);
    const std::string entry = st.name;
    if (size > limits.max_entry_bytes) {
      throw DataError(name_ + ": its entry " + entry + " inflates to " + std::to_string(size) +
                      " bytes, over the limit of " + std::to_string(limits.max_entry_bytes) + ".");
    }
    if (size > (1 << 20) && size > limits.max_ratio * std::max<int64_t>(packed, 1)) {
      throw DataError(name_ + ": its entry " + entry + " inflates " + std::to_string(size / std::max<int64_t>(packed, 1)) +
                      " times (" + std::to_string(packed) + " to " + std::to_string(size) +
                      " bytes), as only a zip bomb does; it is refused.");
    }
    total += size;
    if (total > limits.max_total_bytes) {
      throw DataError(name_ + " inflates to over " + std::to_string(limits.max_total_bytes) +
                      " bytes in all; it is refused (a zip bomb, or a document too large to translate).");
    }
    names_.push_back(entry);
  }
}

ZipArchive::~ZipArchive() = default;

bool ZipArchive::has(const std::string& entry) const { return zip_name_locate(zip_->zip, entry.c_str(), 0) >= 0; }

std::string ZipArchive::read(const std::string& entry) const {
  const zip_int64_t index = zip_name_locate(zip_->zip, entry.c_str(), 0);
  if (index < 0) throw DataError(name_ + " has no entry " + entry + ".");
  zip_stat_t st;
  zip_stat_index(zip_->zip, static_cast<zip_uint64_t>(index), 0, &st);
  zip_file_t* file = zip_fopen_index(zip_->zip, static_cast<zip_uint64_t>(index), 0);
  if (!file) throw DataError(name_ + ": its entry " + entry + " cannot be read (" + zip_strerror(zip_->zip) + ").");
  std::string out(static_cast<size_t>(st.size), '\0');
  const zip_int64_t got = out.empty() ? 0 : zip_fread(file, out.data(), out.size());
  // Reading one byte more finds an entry longer than its directory says; the CRC is checked at its end.
  char extra;
  const zip_int64_t more = got == static_cast<zip_int64_t>(out.size()) ? zip_fread(file, &extra, 1) : -1;
  const bool ok = got == static_cast<zip_int64_t>(out.size()) && more == 0;
  const std::string why = ok ? "" : zip_file_strerror(file);
  zip_fclose(file);
  if (!ok) throw DataError(name_ + ": its entry " + entry + " is damaged (" + why + ").");
  return out;
}

void ZipArchive::replace(const std::string& entry, std::string content) { replaced_[entry] = std::move(content); }

void ZipArchive::put(const std::string& entry, std::string content, bool stored) {
  if (!has(entry)) added_.insert(entry);
  if (stored) stored_.insert(entry);
  replaced_[entry] = std::move(content);
}

std::string ZipArchive::empty_archive() {
  // The end of central directory record alone: signature, then zeros.
  std::string bytes("PK\x05\x06", 4);
  bytes.append(18, '\0');
  return bytes;
}

std::string ZipArchive::bytes() const {
  if (replaced_.empty()) return source_;
  std::string why;
  zip_source_t* buffer = nullptr;
  zip_t* zip = open_in_memory(source_, 0, &buffer, why);
  if (!zip) throw DataError(name_ + " cannot be rewritten (" + why + ").");
  zip_source_keep(buffer);  // zip_close writes the new archive into it
  for (const auto& [entry, content] : replaced_) {
    const zip_int64_t index = zip_name_locate(zip, entry.c_str(), 0);
    zip_source_t* data = zip_source_buffer(zip, content.data(), content.size(), 0);
    const bool added = index < 0 && added_.count(entry) && data &&
                       zip_file_add(zip, entry.c_str(), data, ZIP_FL_ENC_UTF_8) >= 0;
    if (!added && (index < 0 || !data || zip_file_replace(zip, static_cast<zip_uint64_t>(index), data, 0) != 0)) {
      if (data) zip_source_free(data);
      zip_discard(zip);
      zip_source_free(buffer);
      throw DataError(name_ + ": its entry " + entry + " cannot be replaced.");
    }
    const zip_int64_t at = zip_name_locate(zip, entry.c_str(), 0);
    if (stored_.count(entry) && (at < 0 || zip_set_file_compression(zip, static_cast<zip_uint64_t>(at), ZIP_CM_STORE, 0) != 0)) {
      zip_discard(zip);
      zip_source_free(buffer);
      throw DataError(name_ + ": its entry " + entry + " cannot be stored uncompressed.");
    }
  }
  if (zip_close(zip) != 0) {
    why = zip_strerror(zip);
    zip_discard(zip);
    zip_source_free(buffer);
    throw DataError(name_ + " cannot be rewritten (" + why + ").");
  }
  std::string out;
  if (zip_source_open(buffer) == 0) {
    zip_source_seek(buffer, 0, SEEK_END);
    out.resize(static_cast<size_t>(zip_source_tell(buffer)));
    zip_source_seek(buffer, 0, SEEK_SET);
    const zip_int64_t got = out.empty() ? 0 : zip_source_read(buffer, out.data(), out.size());
    zip_source_close(buffer);
    if (got != static_cast<zip_int64_t>(out.size())) out.clear();
  }
  zip_source_free(buffer);
  if (out.empty()) throw DataError(name_ + " cannot be rewritten (the new archive could not be read back).");
  return out;
}

}  // namespace nmt::document
