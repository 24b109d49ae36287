// What the trainer needs from the data, from the configuration:
//
//   auto vocabs = vocab::prepare_vocabularies(config, out_dir);
//   auto data = data::prepare_training_data(config, vocabs, out_dir);
//   data::BatchIterator train = data::make_train_iterator(data, config);
//   std::vector<data::Batch> valid = data::make_valid_batches(data, config);
//   data::ParallelLines lines = data::read_parallel_lines(config.data.valid_src, config.data.valid_tgt);
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/batch_iterator.h"
#include "data/corpus_cache.h"
#include "data/corpus_mix.h"
#include "data/encoded_corpus.h"
#include "data/parallel_reader.h"

namespace nmt {
struct Config;
struct ModelConfig;
}
namespace nmt::vocab {
struct Vocabularies;
}

namespace nmt::data {

struct TrainingData {
  std::shared_ptr<const CorpusMix> train;
  std::vector<PreparedCorpus> train_caches;    // one per corpus, in the mix's order
  std::shared_ptr<const EncodedCorpus> valid;  // null without data.valid_src/valid_tgt
  int32_t valid_tag_id = -1;                   // its pair's tag (data/language_tags.h); -1: none
  PreparedCorpus valid_cache;
  SpecialIds ids;                              // from the vocabularies
  bool train_reused() const;                   // every corpus's cache found valid
};

// The ids batches are wrapped with: the vocabularies', the source's sos and
// eos only where the model reads them (model.source_bos, model.source_eos).
SpecialIds special_ids(const vocab::Vocabularies& vocabs, const ModelConfig& model);

// Encodes (or reuses the id caches of) the training corpora and the
// validation corpus. Training pairs are filtered by data.max_len,
// data.max_len_ratio and the identical/duplicate filters; validation pairs
// only by data.max_len and empty sides (the model cannot take longer ones).
// A corpus's tag must be a piece of the source vocabulary (DataError).
TrainingData prepare_training_data(const Config& config, const vocab::Vocabularies& vocabs,
                                   const std::string& out_dir);

// Shuffled training batches by train.batch_tokens and train.seed, at epoch 0.
BatchIterator make_train_iterator(const TrainingData& data, const Config& config);

// Validation batches in a fixed order; empty without a validation set.
std::vector<Batch> make_valid_batches(const TrainingData& data, const Config& config);

// One line per corpus for the log: its files, weight, tag, filter summary
// and whether its cache was reused or how long encoding took and why.
std::vector<std::string> describe_training_data(const TrainingData& data);

}  // namespace nmt::data
