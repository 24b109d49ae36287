#include "data/encoded_corpus.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "text/line_reader.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::data {
namespace {

constexpr char kMagic[8] = {'N', 'M', 'T', 'I', 'D', 'S', '\0', '\1'};
// 2: pairs over the line byte limit counted; 3: ids streamed pair by pair, index at the end, more filters
constexpr uint64_t kVersion = 3;

struct CacheHeader {
  char magic[8];
  uint64_t version, key, pairs, token_bytes, src_tokens, tgt_tokens;
  int64_t read, kept, empty, too_long, bad_ratio, identical, duplicate, max_len;
  double max_len_ratio;
  uint64_t drop_identical, drop_duplicates;
  uint64_t file_size;
  int64_t over_byte_limit;
  int64_t first_over_byte_limit[text::kSkippedLineExamples];  // 0: none
};
static_assert(sizeof(CacheHeader) % 8 == 0, "parts after the header must stay 8-byte aligned");

// The filter counts, field by field, between the header and FilterStats.
constexpr std::pair<int64_t CacheHeader::*, int64_t FilterStats::*> kCounts[] = {
    {&CacheHeader::read, &FilterStats::read},           {&CacheHeader::kept, &FilterStats::kept},
    {&CacheHeader::empty, &FilterStats::empty},         {&CacheHeader::too_long, &FilterStats::too_long},
    {&CacheHeader::bad_ratio, &FilterStats::bad_ratio}, {&CacheHeader::identical, &FilterStats::identical},
    {&CacheHeader::duplicate, &FilterStats::duplicate}, {&CacheHeader::over_byte_limit, &FilterStats::over_byte_limit}};

uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

uint64_t ids_bytes(uint64_t tokens, uint64_t token_bytes) { return align8(tokens * token_bytes); }

uint64_t image_size(uint64_t pairs, uint64_t token_bytes, uint64_t tokens) {
  return sizeof(CacheHeader) + ids_bytes(tokens, token_bytes) + 8 * (pairs + 1) + align8(4 * pairs);
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
  for (const auto& [in_header, in_stats] : kCounts) h.*in_header = s.*in_stats;
  h.max_len = s.rules.max_len;
  h.max_len_ratio = s.rules.max_len_ratio;
  h.drop_identical = s.rules.drop_identical;
  h.drop_duplicates = s.rules.drop_duplicates;
  for (size_t i = 0; i < s.first_over_byte_limit.size() && i < text::kSkippedLineExamples; ++i) {
    h.first_over_byte_limit[i] = s.first_over_byte_limit[i];
  }
  h.file_size = image_size(pairs, token_bytes, src_tokens + tgt_tokens);
  return h;
}

FilterStats stats_of(const CacheHeader& h) {
  FilterStats s;
  for (const auto& [in_header, in_stats] : kCounts) s.*in_stats = h.*in_header;
  s.rules.max_len = h.max_len;
  s.rules.max_len_ratio = h.max_len_ratio;
  s.rules.drop_identical = h.drop_identical != 0;
  s.rules.drop_duplicates = h.drop_duplicates != 0;
  for (int64_t line : h.first_over_byte_limit) {
    if (line > 0) s.first_over_byte_limit.push_back(line);
  }
  return s;
}

// A cache that cannot be written (a full disk, a file size limit) is not bad
// data: exit 1, as for checkpoints (util/atomic_file.h).
[[noreturn]] void cache_write_failed(const std::string& path, int err) {
  throw Error("Cannot write the id cache " + path + ": " + std::strerror(err) +
                  "; nothing of the run is lost: free some space (or raise the file size limit) and run again.",
              kExitOther);
}

}  // namespace

std::string EncodedCorpus::attach(const char* base, size_t size, uint64_t expected_key) {
  if (size < sizeof(CacheHeader)) return "it is shorter than its header";
  CacheHeader h;
  std::memcpy(&h, base, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return "it is not an id cache";
  if (h.version != kVersion) {
    return "it was written in format " + std::to_string(h.version) + ", this version reads " + std::to_string(kVersion);
  }
  if (h.key != expected_key) return "it was made from other files, vocabulary or filters";
  if ((h.token_bytes != 2 && h.token_bytes != 4) || h.pairs > (uint64_t{1} << 40) ||
      h.src_tokens > (uint64_t{1} << 50) || h.tgt_tokens > (uint64_t{1} << 50)) {
    return "its header is damaged";
  }
  const uint64_t tokens = h.src_tokens + h.tgt_tokens;
  if (h.file_size != size || image_size(h.pairs, h.token_bytes, tokens) != size) {
    return "it holds " + std::to_string(size) + " bytes where its header says " + std::to_string(h.file_size) +
           " (cut short or damaged)";
  }
  key_ = h.key;
  pairs_ = h.pairs;
  token_bytes_ = h.token_bytes;
  src_tokens_ = h.src_tokens;
  tgt_tokens_ = h.tgt_tokens;
  ids_ = base + sizeof h;
  begin_ = reinterpret_cast<const uint64_t*>(base + sizeof h + ids_bytes(tokens, h.token_bytes));
  src_len_ = reinterpret_cast<const uint32_t*>(begin_ + pairs_ + 1);
  if (begin_[0] != 0 || begin_[pairs_] != tokens) return "its index is damaged";
  stats_ = stats_of(h);
  return "";
}

std::shared_ptr<const EncodedCorpus> EncodedCorpus::open(const std::string& path, uint64_t expected_key,
                                                         std::string* why_not) {
  auto fail = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return nullptr;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(errno == ENOENT ? kNoCacheFile : std::string("it cannot be opened: ") + std::strerror(errno));
  struct stat st {};
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  ::close(fd);
  if (map == MAP_FAILED) return fail(st.st_size == 0 ? "it is empty" : "it cannot be mapped");
  std::shared_ptr<EncodedCorpus> c(new EncodedCorpus());
  c->path_ = path;
  c->map_ = map;
  c->map_size_ = static_cast<size_t>(st.st_size);
  const std::string why = c->attach(static_cast<const char*>(map), c->map_size_, expected_key);
  if (!why.empty()) return fail(why);
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
  const uint64_t n = src.size(), tokens = src_total + tgt_total;
  const CacheHeader h = make_header(0, n, 4, src_total, tgt_total, stats);
  std::shared_ptr<EncodedCorpus> c(new EncodedCorpus());
  c->memory_.assign(h.file_size / 8, 0);
  char* base = reinterpret_cast<char*>(c->memory_.data());
  std::memcpy(base, &h, sizeof h);
  auto* ids = reinterpret_cast<int32_t*>(base + sizeof h);
  auto* begin = reinterpret_cast<uint64_t*>(base + sizeof h + ids_bytes(tokens, 4));
  auto* src_len = reinterpret_cast<uint32_t*>(begin + n + 1);
  uint64_t at = 0;
  for (uint64_t i = 0; i < n; ++i) {
    begin[i] = at;
    src_len[i] = static_cast<uint32_t>(src[i].size());
    std::memcpy(ids + at, src[i].data(), src[i].size() * 4);
    at += src[i].size();
    std::memcpy(ids + at, tgt[i].data(), tgt[i].size() * 4);
    at += tgt[i].size();
  }
  begin[n] = at;
  const std::string why = c->attach(base, h.file_size, 0);
  if (!why.empty()) throw DataError("from_vectors: inconsistent image (" + why + ").");
  c->stats_ = stats;
  return c;
}

EncodedCorpus::~EncodedCorpus() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

void EncodedCorpus::copy_ids(uint64_t begin, uint64_t end, int64_t* out) const {
  if (token_bytes_ == 2) {
    const auto* p = static_cast<const uint16_t*>(ids_);
    for (uint64_t k = begin; k < end; ++k) *out++ = p[k];
  } else {
    const auto* p = static_cast<const int32_t*>(ids_);
    for (uint64_t k = begin; k < end; ++k) *out++ = p[k];
  }
}

void EncodedCorpus::copy_src(int64_t i, int64_t* out) const { copy_ids(begin_[i], begin_[i] + src_len_[i], out); }
void EncodedCorpus::copy_tgt(int64_t i, int64_t* out) const {
  copy_ids(begin_[i] + src_len_[i], begin_[i + 1], out);
}

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
  const std::string tmp = path_ + temporary_suffix();
  try {
    open_spill(out_, tmp);
    open_spill(begin_, tmp + ".begin");
    open_spill(src_len_, tmp + ".srclen");
    const CacheHeader placeholder{};
    write(out_, &placeholder, sizeof placeholder);
  } catch (...) {  // no destructor runs for a constructor that throws
    close_all();
    for (Spill* s : {&out_, &begin_, &src_len_}) {
      if (!s->path.empty()) std::remove(s->path.c_str());
    }
    throw;
  }
}

EncodedCorpusWriter::~EncodedCorpusWriter() {
  close_all();
  for (Spill* s : {&begin_, &src_len_}) std::remove(s->path.c_str());
  if (!finished_) std::remove(out_.path.c_str());
}

void EncodedCorpusWriter::open_spill(Spill& s, const std::string& path) {
  s.path = path;
  s.file = std::fopen(s.path.c_str(), "w+b");
  if (s.file == nullptr) cache_write_failed(s.path, errno);
  std::setvbuf(s.file, nullptr, _IOFBF, 1 << 20);
}

void EncodedCorpusWriter::write(Spill& s, const void* data, size_t bytes) {
  if (bytes > 0 && std::fwrite(data, 1, bytes, s.file) != bytes) cache_write_failed(s.path, errno);
  s.bytes += bytes;
}

void EncodedCorpusWriter::write_ids(const std::vector<int32_t>& ids) {
  if (token_bytes_ == 4) {
    write(out_, ids.data(), ids.size() * 4);
    return;
  }
  narrow_.assign(ids.begin(), ids.end());
  write(out_, narrow_.data(), narrow_.size() * 2);
}

void EncodedCorpusWriter::add(const std::vector<int32_t>& src, const std::vector<int32_t>& tgt) {
  const uint64_t begin = src_total_ + tgt_total_;
  const auto src_len = static_cast<uint32_t>(src.size());
  write(begin_, &begin, 8);
  write(src_len_, &src_len, 4);
  write_ids(src);
  write_ids(tgt);
  src_total_ += src.size();
  tgt_total_ += tgt.size();
  ++pairs_;
}

void EncodedCorpusWriter::append(Spill& from, Spill& to) {
  if (std::fflush(from.file) != 0 || std::fseek(from.file, 0, SEEK_SET) != 0) cache_write_failed(from.path, errno);
  std::vector<char> buffer(1 << 20);
  size_t got;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), from.file)) > 0) write(to, buffer.data(), got);
  if (std::ferror(from.file)) throw DataError("Cannot read back " + from.path + ".");
}

void EncodedCorpusWriter::close_all() {
  for (Spill* s : {&out_, &begin_, &src_len_}) {
    if (s->file != nullptr) std::fclose(s->file);
    s->file = nullptr;
  }
}

void EncodedCorpusWriter::finish(const FilterStats& stats) {
  static const uint64_t zeros = 0;
  write(out_, &zeros, align8(out_.bytes) - out_.bytes);
  const uint64_t end = src_total_ + tgt_total_;
  write(begin_, &end, 8);
  append(begin_, out_);
  append(src_len_, out_);
  write(out_, &zeros, align8(out_.bytes) - out_.bytes);
  const CacheHeader h = make_header(key_, pairs_, static_cast<uint64_t>(token_bytes_), src_total_, tgt_total_, stats);
  if (out_.bytes != h.file_size) cache_write_failed(out_.path, ENOSPC);
  if (std::fseek(out_.file, 0, SEEK_SET) != 0 || std::fwrite(&h, sizeof h, 1, out_.file) != 1 ||
      std::fflush(out_.file) != 0 || ::fsync(fileno(out_.file)) != 0) {
    cache_write_failed(out_.path, errno);
  }
  const bool closed = std::fclose(out_.file) == 0;
  const int err = errno;
  out_.file = nullptr;
  if (!closed) cache_write_failed(out_.path, err);
  if (std::rename(out_.path.c_str(), path_.c_str()) != 0) {
    throw DataError("Cannot rename " + out_.path + " to " + path_ + ": " + std::strerror(errno) + ".");
  }
  finished_ = true;
}

}  // namespace nmt::data
