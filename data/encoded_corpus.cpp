#include "data/encoded_corpus.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "text/line_reader.h"
#include "util/error.h"

namespace nmt::data {
namespace {

constexpr char kMagic[8] = {'N', 'M', 'T', 'I', 'D', 'S', '\0', '\1'};
constexpr uint64_t kVersion = 2;  // 2: pairs over the line byte limit counted

struct CacheHeader {
  char magic[8];
  uint64_t version, key, pairs, token_bytes, src_tokens, tgt_tokens;
  int64_t read, kept, empty, too_long, bad_ratio, max_len;
  double max_len_ratio;
  uint64_t file_size;
  int64_t over_byte_limit;
  int64_t first_over_byte_limit[text::kSkippedLineExamples];  // 0: none
};
static_assert(sizeof(CacheHeader) % 8 == 0, "parts after the header must stay 8-byte aligned");

uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

uint64_t image_size(uint64_t pairs, uint64_t token_bytes, uint64_t src_tokens, uint64_t tgt_tokens) {
  return sizeof(CacheHeader) + 2 * 8 * (pairs + 1) + align8(src_tokens * token_bytes) +
         align8(tgt_tokens * token_bytes);
}

CacheHeader make_header(uint64_t key, uint64_t pairs, uint64_t token_bytes, uint64_t src_tokens,
                        uint64_t tgt_tokens, const FilterStats& s) {
  CacheHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.key = key;
  h.pairs = pairs;
  h.token_bytes = token_bytes;
  h.src_tokens = src_tokens;
  h.tgt_tokens = tgt_tokens;
  h.read = s.read;
  h.kept = s.kept;
  h.empty = s.empty;
  h.too_long = s.too_long;
  h.bad_ratio = s.bad_ratio;
  h.max_len = s.rules.max_len;
  h.max_len_ratio = s.rules.max_len_ratio;
  h.over_byte_limit = s.over_byte_limit;
  for (size_t i = 0; i < s.first_over_byte_limit.size() && i < text::kSkippedLineExamples; ++i) {
    h.first_over_byte_limit[i] = s.first_over_byte_limit[i];
  }
  h.file_size = image_size(pairs, token_bytes, src_tokens, tgt_tokens);
  return h;
}

// A cache that cannot be written (a full disk, a file size limit) is not bad
// data: exit 1, as for checkpoints (util/atomic_file.h).
[[noreturn]] void cache_write_failed(const std::string& path, int err) {
  throw Error("Cannot write the id cache " + path + ": " + std::strerror(err) +
                  "; nothing of the run is lost: free some space (or raise the file size limit) and run again.",
              kExitOther);
}

}  // namespace

bool EncodedCorpus::attach(const char* base, size_t size, uint64_t expected_key) {
  if (size < sizeof(CacheHeader)) return false;
  CacheHeader h;
  std::memcpy(&h, base, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != kVersion || h.key != expected_key ||
      (h.token_bytes != 2 && h.token_bytes != 4) || h.file_size != size ||
      image_size(h.pairs, h.token_bytes, h.src_tokens, h.tgt_tokens) != size) {
    return false;
  }
  key_ = h.key;
  pairs_ = h.pairs;
  token_bytes_ = h.token_bytes;
  src_off_ = reinterpret_cast<const uint64_t*>(base + sizeof h);
  tgt_off_ = src_off_ + pairs_ + 1;
  if (src_off_[pairs_] != h.src_tokens || tgt_off_[pairs_] != h.tgt_tokens) return false;
  src_ids_ = tgt_off_ + pairs_ + 1;
  tgt_ids_ = static_cast<const char*>(src_ids_) + align8(h.src_tokens * h.token_bytes);
  stats_.read = h.read;
  stats_.kept = h.kept;
  stats_.empty = h.empty;
  stats_.too_long = h.too_long;
  stats_.bad_ratio = h.bad_ratio;
  stats_.rules.max_len = h.max_len;
  stats_.rules.max_len_ratio = h.max_len_ratio;
  stats_.over_byte_limit = h.over_byte_limit;
  for (int64_t line : h.first_over_byte_limit) {
    if (line > 0) stats_.first_over_byte_limit.push_back(line);
  }
  return true;
}

std::shared_ptr<const EncodedCorpus> EncodedCorpus::open(const std::string& path, uint64_t expected_key) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  ::close(fd);
  if (map == MAP_FAILED) return nullptr;
  std::shared_ptr<EncodedCorpus> c(new EncodedCorpus());
  c->path_ = path;
  c->map_ = map;
  c->map_size_ = static_cast<size_t>(st.st_size);
  if (!c->attach(static_cast<const char*>(map), c->map_size_, expected_key)) return nullptr;
  return c;
}

std::shared_ptr<const EncodedCorpus> EncodedCorpus::from_vectors(const std::vector<std::vector<int32_t>>& src,
                                                                 const std::vector<std::vector<int32_t>>& tgt,
                                                                 const FilterStats& stats) {
  if (src.size() != tgt.size()) throw DataError("from_vectors: the two sides differ in size.");
  uint64_t src_total = 0, tgt_total = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    src_total += src[i].size();
    tgt_total += tgt[i].size();
  }
  const uint64_t n = src.size();
  const CacheHeader h = make_header(0, n, 4, src_total, tgt_total, stats);
  std::shared_ptr<EncodedCorpus> c(new EncodedCorpus());
  c->memory_.assign(h.file_size / 8, 0);
  char* base = reinterpret_cast<char*>(c->memory_.data());
  std::memcpy(base, &h, sizeof h);
  auto* offsets = reinterpret_cast<uint64_t*>(base + sizeof h);
  auto* src_ids = reinterpret_cast<int32_t*>(offsets + 2 * (n + 1));
  auto* tgt_ids = reinterpret_cast<int32_t*>(reinterpret_cast<char*>(src_ids) + align8(src_total * 4));
  uint64_t s = 0, t = 0;
  for (uint64_t i = 0; i < n; ++i) {
    offsets[i] = s;
    offsets[n + 1 + i] = t;
    std::memcpy(src_ids + s, src[i].data(), src[i].size() * 4);
    std::memcpy(tgt_ids + t, tgt[i].data(), tgt[i].size() * 4);
    s += src[i].size();
    t += tgt[i].size();
  }
  offsets[n] = s;
  offsets[2 * n + 1] = t;
  if (!c->attach(base, h.file_size, 0)) throw DataError("from_vectors: inconsistent image.");
  c->stats_ = stats;
  return c;
}

EncodedCorpus::~EncodedCorpus() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

void EncodedCorpus::copy_ids(const void* ids, uint64_t begin, uint64_t end, int64_t* out) const {
  if (token_bytes_ == 2) {
    const auto* p = static_cast<const uint16_t*>(ids);
    for (uint64_t k = begin; k < end; ++k) *out++ = p[k];
  } else {
    const auto* p = static_cast<const int32_t*>(ids);
    for (uint64_t k = begin; k < end; ++k) *out++ = p[k];
  }
}

void EncodedCorpus::copy_src(int64_t i, int64_t* out) const { copy_ids(src_ids_, src_off_[i], src_off_[i + 1], out); }
void EncodedCorpus::copy_tgt(int64_t i, int64_t* out) const { copy_ids(tgt_ids_, tgt_off_[i], tgt_off_[i + 1], out); }

std::vector<int32_t> EncodedCorpus::src(int64_t i) const {
  std::vector<int64_t> wide(static_cast<size_t>(src_len(i)));
  copy_src(i, wide.data());
  return std::vector<int32_t>(wide.begin(), wide.end());
}

std::vector<int32_t> EncodedCorpus::tgt(int64_t i) const {
  std::vector<int64_t> wide(static_cast<size_t>(tgt_len(i)));
  copy_tgt(i, wide.data());
  return std::vector<int32_t>(wide.begin(), wide.end());
}

// ---------------------------------------------------------------------------

EncodedCorpusWriter::EncodedCorpusWriter(std::string path, uint64_t key, int token_bytes)
    : path_(std::move(path)), key_(key), token_bytes_(token_bytes) {
  open_spill(src_off_, ".src_off");
  open_spill(tgt_off_, ".tgt_off");
  open_spill(src_ids_, ".src_ids");
  open_spill(tgt_ids_, ".tgt_ids");
  const uint64_t zero = 0;
  write(src_off_, &zero, 8);
  write(tgt_off_, &zero, 8);
}

EncodedCorpusWriter::~EncodedCorpusWriter() {
  close_all();
  for (Spill* s : {&src_off_, &tgt_off_, &src_ids_, &tgt_ids_}) {
    if (!s->path.empty()) std::remove(s->path.c_str());
  }
}

void EncodedCorpusWriter::open_spill(Spill& s, const char* suffix) {
  s.path = path_ + suffix + ".tmp" + std::to_string(::getpid());
  s.file = std::fopen(s.path.c_str(), "wb");
  if (s.file == nullptr) cache_write_failed(s.path, errno);
  std::setvbuf(s.file, nullptr, _IOFBF, 1 << 20);
}

void EncodedCorpusWriter::write(Spill& s, const void* data, size_t bytes) {
  if (bytes > 0 && std::fwrite(data, 1, bytes, s.file) != bytes) cache_write_failed(s.path, errno);
  s.bytes += bytes;
}

void EncodedCorpusWriter::write_ids(Spill& s, const std::vector<int32_t>& ids) {
  if (token_bytes_ == 4) {
    write(s, ids.data(), ids.size() * 4);
    return;
  }
  narrow_.assign(ids.begin(), ids.end());
  write(s, narrow_.data(), narrow_.size() * 2);
}

void EncodedCorpusWriter::add(const std::vector<int32_t>& src, const std::vector<int32_t>& tgt) {
  write_ids(src_ids_, src);
  write_ids(tgt_ids_, tgt);
  src_total_ += src.size();
  tgt_total_ += tgt.size();
  write(src_off_, &src_total_, 8);
  write(tgt_off_, &tgt_total_, 8);
  ++pairs_;
}

void EncodedCorpusWriter::close_all() {
  for (Spill* s : {&src_off_, &tgt_off_, &src_ids_, &tgt_ids_}) {
    if (s->file != nullptr) std::fclose(s->file);
    s->file = nullptr;
  }
}

void EncodedCorpusWriter::finish(const FilterStats& stats) {
  static const uint64_t zeros = 0;
  for (Spill* s : {&src_ids_, &tgt_ids_}) write(*s, &zeros, align8(s->bytes) - s->bytes);
  for (Spill* s : {&src_off_, &tgt_off_, &src_ids_, &tgt_ids_}) {
    if (std::fflush(s->file) != 0) cache_write_failed(s->path, errno);
  }
  close_all();
  const CacheHeader h = make_header(key_, pairs_, token_bytes_, src_total_, tgt_total_, stats);
  Spill out;
  out.path = path_ + ".tmp" + std::to_string(::getpid());
  out.file = std::fopen(out.path.c_str(), "wb");
  if (out.file == nullptr) cache_write_failed(out.path, errno);
  std::vector<char> buffer(1 << 20);
  try {
    write(out, &h, sizeof h);
    for (Spill* s : {&src_off_, &tgt_off_, &src_ids_, &tgt_ids_}) {
      std::FILE* in = std::fopen(s->path.c_str(), "rb");
      if (in == nullptr) throw DataError("Cannot read back " + s->path + ".");
      size_t got;
      while ((got = std::fread(buffer.data(), 1, buffer.size(), in)) > 0) write(out, buffer.data(), got);
      std::fclose(in);
    }
    const bool closed = std::fclose(out.file) == 0;
    const int err = closed ? ENOSPC : errno;
    out.file = nullptr;
    if (!closed || out.bytes != h.file_size) cache_write_failed(out.path, err);
    if (std::rename(out.path.c_str(), path_.c_str()) != 0) {
      throw DataError("Cannot rename " + out.path + " to " + path_ + ": " + std::strerror(errno) + ".");
    }
  } catch (...) {
    if (out.file != nullptr) std::fclose(out.file);
    std::remove(out.path.c_str());
    throw;
  }
  finished_ = true;
}

}  // namespace nmt::data
