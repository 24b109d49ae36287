// Trains a SentencePiece model from (possibly gzipped) corpus files, through
// a bounded sample written to a plain temporary file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt::vocab {

struct VocabTrainOptions {
  std::string type = "bpe";      // bpe | unigram
  int64_t size = 8000;           // pieces; a soft limit when the sample is too small for it
  int64_t max_lines = 2000000;   // sentences in the training sample, over all files
  uint64_t seed = 1234;          // which lines the sample takes
  int threads = 0;               // 0: all cores
  std::vector<std::string> user_symbols;  // pieces kept whole, each one id (the corpora's tags)
};

// Writes at most max_lines non-empty lines to out_path, an equal share from
// each file, chosen uniformly at random and kept in file order. Each file is
// read once (reservoir sampling: the share is held in memory, not the file),
// several files at once on `threads` threads. Returns the number written.
// Throws nmt::DataError for unreadable or invalid files.
int64_t write_training_sample(const std::vector<std::string>& files, int64_t max_lines,
                              uint64_t seed, const std::string& out_path, int threads = 1);

// Trains <model_prefix>.model (and .vocab) on a sample of files with the
// special ids unk 0, pad 1, bos 2, eos 3. Throws nmt::DataError naming the
// files when there is no text or SentencePiece fails.
void train_sentencepiece(const std::vector<std::string>& files, const std::string& model_prefix,
                         const VocabTrainOptions& options);

}  // namespace nmt::vocab
