// A filtered parallel corpus as subword ids, in one binary file that is
// mapped into memory rather than read: the raw text is never held, and the
// ids of millions of pairs cost only the pages that batching touches.
//
// File layout (native byte order, 8-byte aligned parts):
//   CacheHeader | ids: each pair's source then target (u16 or i32), padding to 8
//   | begin u64[n + 1] (a pair's first id) | source lengths u32[n], padding to 8
// The ids stream into the file as pairs are encoded; the small index (12
// bytes a pair) waits in a spill file and is appended at the end, then the
// header is written and the file renamed into place.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "data/pair_filter.h"

namespace nmt::data {

// What EncodedCorpus::open says when there is no file at all.
constexpr const char* kNoCacheFile = "there is none yet";

class EncodedCorpus {
 public:
  // Maps a cache file. Returns nullptr when it is absent, damaged, of
  // another format or was made with another key, and then says which in
  // *why_not (when given): the caller rebuilds it.
  static std::shared_ptr<const EncodedCorpus> open(const std::string& path, uint64_t expected_key,
                                                   std::string* why_not = nullptr);
  // A corpus held in memory with the same layout (tests, small sets).
  static std::shared_ptr<const EncodedCorpus> from_vectors(const std::vector<std::vector<int32_t>>& src,
                                                           const std::vector<std::vector<int32_t>>& tgt,
                                                           const FilterStats& stats = {});
  ~EncodedCorpus();
  EncodedCorpus(const EncodedCorpus&) = delete;
  EncodedCorpus& operator=(const EncodedCorpus&) = delete;

  int64_t size() const { return static_cast<int64_t>(pairs_); }
  // Tokens of pair i, without sos/eos.
  int64_t src_len(int64_t i) const { return src_len_[i]; }
  int64_t tgt_len(int64_t i) const { return static_cast<int64_t>(begin_[i + 1] - begin_[i]) - src_len_[i]; }
  int64_t src_tokens() const { return static_cast<int64_t>(src_tokens_); }
  int64_t tgt_tokens() const { return static_cast<int64_t>(tgt_tokens_); }
  // Writes pair i's ids to out[0, len).
  void copy_src(int64_t i, int64_t* out) const;
  void copy_tgt(int64_t i, int64_t* out) const;
  std::vector<int32_t> src(int64_t i) const;
  std::vector<int32_t> tgt(int64_t i) const;

  const FilterStats& stats() const { return stats_; }
  uint64_t key() const { return key_; }
  const std::string& path() const { return path_; }  // empty when in memory

 private:
  EncodedCorpus() = default;
  // An empty string when base holds a valid image, else what is wrong.
  std::string attach(const char* base, size_t size, uint64_t expected_key);
  void copy_ids(uint64_t begin, uint64_t end, int64_t* out) const;

  std::string path_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::vector<uint64_t> memory_;  // the image, when not mapped
  uint64_t key_ = 0, pairs_ = 0, token_bytes_ = 4, src_tokens_ = 0, tgt_tokens_ = 0;
  const uint64_t* begin_ = nullptr;
  const uint32_t* src_len_ = nullptr;
  const void* ids_ = nullptr;
  FilterStats stats_;
};

// Streams pairs into a cache file under a temporary name (path.tmp-HOST-PID)
// and renames it into place in finish(), so that an interrupted build never
// leaves a file that open() would accept. Without finish() the temporaries
// are removed.
class EncodedCorpusWriter {
 public:
  // token_bytes: 2 when every id is below 65536, else 4.
  EncodedCorpusWriter(std::string path, uint64_t key, int token_bytes);
  ~EncodedCorpusWriter();
  EncodedCorpusWriter(const EncodedCorpusWriter&) = delete;
  EncodedCorpusWriter& operator=(const EncodedCorpusWriter&) = delete;

  void add(const std::vector<int32_t>& src, const std::vector<int32_t>& tgt);
  void finish(const FilterStats& stats);

 private:
  struct Spill {
    std::string path;
    std::FILE* file = nullptr;
    uint64_t bytes = 0;
  };
  void open_spill(Spill& s, const std::string& path);
  void write(Spill& s, const void* data, size_t bytes);
  void write_ids(const std::vector<int32_t>& ids);
  void append(Spill& from, Spill& to);
  void close_all();

  std::string path_;
  uint64_t key_;
  int token_bytes_;
  uint64_t pairs_ = 0, src_total_ = 0, tgt_total_ = 0;
  Spill out_, begin_, src_len_;
  std::vector<uint16_t> narrow_;
  bool finished_ = false;
};

}  // namespace nmt::data
