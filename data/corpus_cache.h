// Encodes a parallel corpus once into an id cache (data/encoded_corpus.h) and
// reuses it while the corpus files, the vocabularies and the filter rules
// stay the same. The text streams through in bounded chunks
// (data/encoding_pipeline.h), only ids reach the disk, and the cache is then
// mapped. Caches are named by what they depend on, so that one directory
// (data.cache_dir) serves any number of runs, corpora and vocabularies.
#pragma once

#include <memory>
#include <string>

#include "data/encoded_corpus.h"
#include "data/pair_filter.h"
#include "text/line_reader.h"

namespace nmt::vocab {
class Vocab;
}

namespace nmt::data {

struct EncodeOptions {
  std::string cache_dir;
  FilterRules rules;
  int threads = 0;        // encoding threads; 0: all cores
  size_t max_line_bytes = text::kMaxLineBytes;
};

struct PreparedCorpus {
  std::shared_ptr<const EncodedCorpus> corpus;
  bool reused = false;          // true when an existing cache was valid
  std::string rebuilt_because;  // when not reused: what was wrong with the cache ("there is none yet", ...)
  double seconds = 0;           // spent encoding (0 when reused)
};

// Returns the encoded, filtered corpus of src_path/tgt_path. Throws
// nmt::DataError for unreadable, misaligned or invalid files, and when no
// pair is left (an empty corpus), naming the files.
PreparedCorpus prepare_encoded_corpus(const std::string& src_path, const std::string& tgt_path,
                                      const vocab::Vocab& src_vocab,
                                      const vocab::Vocab& tgt_vocab, const EncodeOptions& options);

// What the cache depends on: each file's absolute path, size and
// modification time, the bytes of both models, the rules and the format.
uint64_t corpus_cache_key(const std::string& src_path, const std::string& tgt_path,
                          const vocab::Vocab& src_vocab, const vocab::Vocab& tgt_vocab,
                          const EncodeOptions& options);

// <cache_dir>/<source file name>-<key in hex>.ids
std::string corpus_cache_path(const std::string& src_path, uint64_t key, const EncodeOptions& options);

}  // namespace nmt::data
