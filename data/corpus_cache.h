// Encodes a parallel corpus once into an id cache (data/encoded_corpus.h) and
// reuses it while the corpus files, the vocabularies and the filter rules
// stay the same. Two streaming passes in spirit: the text flows through in
// bounded chunks, only ids reach the disk, and the cache is then mapped.
#pragma once

#include <memory>
#include <string>

#include "data/encoded_corpus.h"
#include "data/pair_filter.h"
#include "text/line_reader.h"

namespace nmt::vocab {
class SentencePieceVocab;
}

namespace nmt::data {

struct EncodeOptions {
  std::string cache_dir;  // the cache is <cache_dir>/<name>.ids
  FilterRules rules;
  int threads = 0;        // encoding threads; 0: all cores
  size_t max_line_bytes = text::kMaxLineBytes;
};

struct PreparedCorpus {
  std::shared_ptr<const EncodedCorpus> corpus;
  bool reused = false;  // true when an existing cache was valid
};

// Returns the encoded, filtered corpus of src_path/tgt_path. Throws
// nmt::DataError for unreadable, misaligned or invalid files, and when no
// pair is left (an empty corpus), naming the files.
PreparedCorpus prepare_encoded_corpus(const std::string& name, const std::string& src_path,
                                      const std::string& tgt_path, const vocab::SentencePieceVocab& src_vocab,
                                      const vocab::SentencePieceVocab& tgt_vocab, const EncodeOptions& options);

// What the cache depends on: each file's absolute path, size and
// modification time, the bytes of both models, the rules and the format.
uint64_t corpus_cache_key(const std::string& src_path, const std::string& tgt_path,
                          const vocab::SentencePieceVocab& src_vocab, const vocab::SentencePieceVocab& tgt_vocab,
                          const EncodeOptions& options);

}  // namespace nmt::data
