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
#include "data/encoded_corpus.h"
#include "data/parallel_reader.h"

namespace nmt {
struct Config;
}
namespace nmt::vocab {
struct Vocabularies;
}

namespace nmt::data {

struct TrainingData {
  std::shared_ptr<const EncodedCorpus> train;
  std::shared_ptr<const EncodedCorpus> valid;  // null without data.valid_src/valid_tgt
  SpecialIds ids;                              // from the vocabularies
  bool train_reused = false, valid_reused = false;  // caches found valid
};

SpecialIds special_ids(const vocab::Vocabularies& vocabs);

// Encodes (or reuses the id caches of) the training and validation corpora.
// The caches live in cache_dir, by default OUT/data_cache/. Training pairs
// are filtered by data.max_len and data.max_len_ratio; validation pairs only
// by data.max_len and empty sides (the model cannot take longer ones).
TrainingData prepare_training_data(const Config& config, const vocab::Vocabularies& vocabs,
                                   const std::string& out_dir, const std::string& cache_dir = "");

// Shuffled training batches by train.batch_tokens and train.seed, at epoch 0.
BatchIterator make_train_iterator(const TrainingData& data, const Config& config);

// Validation batches in a fixed order; empty without a validation set.
std::vector<Batch> make_valid_batches(const TrainingData& data, const Config& config);

}  // namespace nmt::data
