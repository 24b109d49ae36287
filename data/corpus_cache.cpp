#include "data/corpus_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <thread>

#include "data/parallel_reader.h"
#include "util/error.h"
#include "vocab/sentencepiece_vocab.h"

namespace nmt::data {
namespace {

namespace fs = std::filesystem;

constexpr size_t kChunkPairs = 8192;  // text held at once: a few MB at most

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

void hash_file_identity(Fnv1a& h, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw DataError("Cannot open " + path + ": no such file.");
  std::error_code ec;
  h.text(fs::absolute(path, ec).lexically_normal().string());
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

// One chunk of pairs: the text (copied out of the readers' buffers) and its ids.
struct Chunk {
  std::string text;
  std::vector<size_t> bounds;  // 4 per pair: src begin/end, tgt begin/end in text
  std::vector<std::vector<int32_t>> src_ids, tgt_ids;

  size_t size() const { return bounds.size() / 4; }
  std::string_view piece(size_t k) const { return std::string_view(text).substr(bounds[k], bounds[k + 1] - bounds[k]); }
};

// Pairs with a side over the byte limit are counted in stats, not kept.
bool read_chunk(ParallelReader& reader, Chunk& chunk, FilterStats& stats) {
  chunk.text.clear();
  chunk.bounds.clear();
  std::string_view src, tgt;
  while (chunk.size() < kChunkPairs && reader.next(src, tgt)) {
    if (reader.skipped()) {
      stats.count_over_byte_limit(reader.line_number());
      continue;
    }
    for (std::string_view side : {src, tgt}) {
      chunk.bounds.push_back(chunk.text.size());
      chunk.text.append(side);
      chunk.bounds.push_back(chunk.text.size());
    }
  }
  return chunk.size() > 0;
}

// Encodes every pair of the chunk, splitting it among threads.
void encode_chunk(Chunk& chunk, const vocab::SentencePieceVocab& sv, const vocab::SentencePieceVocab& tv,
                  int threads) {
  const size_t n = chunk.size();
  chunk.src_ids.resize(std::max(chunk.src_ids.size(), n));
  chunk.tgt_ids.resize(std::max(chunk.tgt_ids.size(), n));
  auto work = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      sv.encode_into(chunk.piece(4 * i), chunk.src_ids[i]);
      tv.encode_into(chunk.piece(4 * i + 2), chunk.tgt_ids[i]);
    }
  };
  const size_t parts = std::min<size_t>(static_cast<size_t>(threads), (n + 255) / 256);
  if (parts <= 1) return work(0, n);
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(parts);
  for (size_t p = 1; p < parts; ++p) {
    pool.emplace_back([&, p] {
      try {
        work(n * p / parts, n * (p + 1) / parts);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  }
  try {
    work(0, n / parts);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& t : pool) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

FilterStats encode_into_cache(const std::string& src_path, const std::string& tgt_path,
                              const vocab::SentencePieceVocab& sv, const vocab::SentencePieceVocab& tv,
                              const EncodeOptions& options, EncodedCorpusWriter& writer) {
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ParallelReader reader(src_path, tgt_path, options.max_line_bytes, text::LongLines::kSkip);
  FilterStats stats;
  stats.rules = options.rules;
  Chunk chunk;
  while (read_chunk(reader, chunk, stats)) {
    encode_chunk(chunk, sv, tv, threads);
    for (size_t i = 0; i < chunk.size(); ++i) {
      const auto& s = chunk.src_ids[i];
      const auto& t = chunk.tgt_ids[i];
      const Verdict v = judge_pair(static_cast<int64_t>(s.size()), static_cast<int64_t>(t.size()), options.rules);
      stats.count(v);
      if (v == Verdict::kKeep) writer.add(s, t);
    }
  }
  return stats;
}

// Spill and temporary files of a build that was killed (they carry its pid).
void remove_stale_temporaries(const std::string& cache_dir, const std::string& cache_file) {
  const std::string prefix = fs::path(cache_file).filename().string() + ".";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.find(".tmp") != std::string::npos) fs::remove(entry.path(), ec);
  }
}

}  // namespace

uint64_t corpus_cache_key(const std::string& src_path, const std::string& tgt_path,
                          const vocab::SentencePieceVocab& src_vocab, const vocab::SentencePieceVocab& tgt_vocab,
                          const EncodeOptions& options) {
  Fnv1a h;
  h.text("nmt id cache 1");
  hash_file_identity(h, src_path);
  hash_file_identity(h, tgt_path);
  hash_file_bytes(h, src_vocab.path());
  hash_file_bytes(h, tgt_vocab.path());
  h.value(options.rules.max_len);
  h.value(options.rules.max_len_ratio);
  h.value(static_cast<uint64_t>(options.max_line_bytes));
  return h.digest();
}

PreparedCorpus prepare_encoded_corpus(const std::string& name, const std::string& src_path,
                                      const std::string& tgt_path, const vocab::SentencePieceVocab& src_vocab,
                                      const vocab::SentencePieceVocab& tgt_vocab, const EncodeOptions& options) {
  for (const std::string& p : {src_path, tgt_path}) {
    std::error_code ec;
    if (!fs::exists(p, ec)) throw DataError("Cannot open " + p + ": no such file.");
  }
  std::error_code ec;
  fs::create_directories(options.cache_dir, ec);
  if (ec) throw DataError("Cannot create the cache directory " + options.cache_dir + ": " + ec.message() + ".");
  const std::string path = (fs::path(options.cache_dir) / (name + ".ids")).string();
  const uint64_t key = corpus_cache_key(src_path, tgt_path, src_vocab, tgt_vocab, options);
  if (auto cached = EncodedCorpus::open(path, key)) return {cached, true};

  remove_stale_temporaries(options.cache_dir, path);
  const int token_bytes = std::max(src_vocab.size(), tgt_vocab.size()) <= 65536 ? 2 : 4;
  FilterStats stats;
  {
    EncodedCorpusWriter writer(path, key, token_bytes);
    stats = encode_into_cache(src_path, tgt_path, src_vocab, tgt_vocab, options, writer);
    if (stats.read == 0) {
      throw DataError("The corpus " + src_path + " / " + tgt_path + " is empty (0 lines).");
    }
    if (stats.kept == 0) {
      throw DataError("No sentence pair of " + src_path + " / " + tgt_path +
                      " is left after filtering: " + stats.summary() + ".");
    }
    writer.finish(stats);
  }
  auto corpus = EncodedCorpus::open(path, key);
  if (!corpus) throw DataError("The id cache " + path + " just written cannot be read back.");
  return {corpus, false};
}

}  // namespace nmt::data
