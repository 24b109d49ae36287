#include "data/corpus_cache.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "data/encoding_pipeline.h"
#include "data/fingerprint_set.h"
#include "data/parallel_reader.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_identity.h"
#include "vocab/vocab.h"

namespace nmt::data {
namespace {

namespace fs = std::filesystem;

// Filters each chunk's pairs in the corpus's order and writes the kept ones.
class CacheFiller {
 public:
  CacheFiller(const EncodeOptions& options, EncodedCorpusWriter& writer) : rules_(options.rules), writer_(writer) {
    stats_.rules = rules_;
  }

  void operator()(const EncodedChunk& chunk) {
    for (int64_t line : chunk.over_byte_limit) stats_.count_over_byte_limit(line);
    for (size_t i = 0; i < chunk.size(); ++i) {
      const auto& s = chunk.src_ids[i];
      const auto& t = chunk.tgt_ids[i];
      Verdict v = judge_pair(static_cast<int64_t>(s.size()), static_cast<int64_t>(t.size()), rules_);
      if (v == Verdict::kKeep && rules_.drop_identical && chunk.identical[i]) v = Verdict::kIdentical;
      if (v == Verdict::kKeep && rules_.drop_duplicates && !seen_.insert(chunk.fingerprints[i])) {
        v = Verdict::kDuplicate;
      }
      stats_.count(v);
      if (v == Verdict::kKeep) writer_.add(s, t);
    }
  }
  const FilterStats& stats() const { return stats_; }

 private:
  FilterRules rules_;
  EncodedCorpusWriter& writer_;
  FilterStats stats_;
  FingerprintSet seen_;
};

// Temporary files of builds of this cache that were killed (they name
// their machine and process, which no longer runs).
void remove_stale_temporaries(const std::string& cache_dir, const std::string& cache_file) {
  const std::string target = fs::path(cache_file).filename().string();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    if (stale_temporary(entry.path().filename().string(), target)) fs::remove(entry.path(), ec);
  }
}

// Why no cache could be used, when there was no file of this key: other
// caches of the same source file mean the vocabulary, the filters or the
// files changed since.
std::string absent_because(const std::string& cache_dir, const std::string& src_path) {
  const std::string prefix = fs::path(src_path).filename().string() + "-";
  const auto cache_of_this_file = [&](const std::string& name) {  // <prefix><16 hex digits>.ids
    return name.size() == prefix.size() + 20 && name.rfind(prefix, 0) == 0 &&
           name.find_first_not_of("0123456789abcdef", prefix.size()) == prefix.size() + 16 &&
           name.compare(prefix.size() + 16, 4, ".ids") == 0;
  };
  int others = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    if (cache_of_this_file(entry.path().filename().string())) ++others;
  }
  if (others == 0) return "there is none yet";
  return "there is none for this vocabulary, these filters and this version of the files yet (" +
         std::to_string(others) + " other cache" + (others == 1 ? "" : "s") + " of " +
         fs::path(src_path).filename().string() + " there)";
}

int encoding_threads(const EncodeOptions& options) {
  return options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

uint64_t corpus_cache_key(const std::string& src_path, const std::string& tgt_path,
                          const vocab::Vocab& src_vocab, const vocab::Vocab& tgt_vocab,
                          const EncodeOptions& options) {
  Fnv1a h;
  h.text("nmt id cache 3");
  hash_file_identity(h, src_path);
  hash_file_identity(h, tgt_path);
  hash_file_bytes(h, src_vocab.path());
  hash_file_bytes(h, tgt_vocab.path());
  h.value(options.rules.max_len);
  h.value(options.rules.max_len_ratio);
  h.value(options.rules.drop_identical);
  h.value(options.rules.drop_duplicates);
  h.value(static_cast<uint64_t>(options.max_line_bytes));
  return h.digest();
}

std::string corpus_cache_path(const std::string& src_path, uint64_t key, const EncodeOptions& options) {
  return (fs::path(options.cache_dir) / (fs::path(src_path).filename().string() + "-" + hex_digest(key) + ".ids"))
      .string();
}

PreparedCorpus prepare_encoded_corpus(const std::string& src_path, const std::string& tgt_path,
                                      const vocab::Vocab& src_vocab,
                                      const vocab::Vocab& tgt_vocab, const EncodeOptions& options) {
  for (const std::string& p : {src_path, tgt_path}) {
    std::error_code ec;
    if (!fs::exists(p, ec)) throw DataError("Cannot open " + p + ": no such file.");
  }
  std::error_code ec;
  fs::create_directories(options.cache_dir, ec);
  if (ec) throw DataError("Cannot create the cache directory " + options.cache_dir + ": " + ec.message() + ".");
  const uint64_t key = corpus_cache_key(src_path, tgt_path, src_vocab, tgt_vocab, options);
  const std::string path = corpus_cache_path(src_path, key, options);
  PreparedCorpus prepared;
  if (auto cached = EncodedCorpus::open(path, key, &prepared.rebuilt_because)) {
    prepared.corpus = cached;
    prepared.reused = true;
    return prepared;
  }
  if (prepared.rebuilt_because == kNoCacheFile) prepared.rebuilt_because = absent_because(options.cache_dir, src_path);

  const auto started = std::chrono::steady_clock::now();
  remove_stale_temporaries(options.cache_dir, path);
  const int token_bytes = std::max(src_vocab.size(), tgt_vocab.size()) <= 65536 ? 2 : 4;
  {
    EncodedCorpusWriter writer(path, key, token_bytes);
    CacheFiller filler(options, writer);
    ParallelReader reader(src_path, tgt_path, options.max_line_bytes, text::LongLines::kSkip);
    encode_in_order(reader, src_vocab, tgt_vocab, encoding_threads(options),
                    [&](const EncodedChunk& chunk) { filler(chunk); });
    const FilterStats& stats = filler.stats();
    if (stats.read == 0) {
      throw DataError("The corpus " + src_path + " / " + tgt_path + " is empty (0 lines).");
    }
    if (stats.kept == 0) {
      throw DataError("No sentence pair of " + src_path + " / " + tgt_path +
                      " is left after filtering: " + stats.summary() + ".");
    }
    writer.finish(stats);
  }
  std::string why;
  prepared.corpus = EncodedCorpus::open(path, key, &why);
  if (!prepared.corpus) throw DataError("The id cache " + path + " just written cannot be read back: " + why + ".");
  prepared.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return prepared;
}

}  // namespace nmt::data
