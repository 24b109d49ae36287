#include "data/training_data.h"

#include <filesystem>

#include "data/corpus_cache.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace nmt::data {

SpecialIds special_ids(const vocab::Vocabularies& vocabs) {
  SpecialIds ids;
  ids.src = {vocabs.src->pad_id(), vocabs.src->bos_id(), vocabs.src->eos_id()};
  ids.tgt = {vocabs.tgt->pad_id(), vocabs.tgt->bos_id(), vocabs.tgt->eos_id()};
  return ids;
}

TrainingData prepare_training_data(const Config& config, const vocab::Vocabularies& vocabs,
                                   const std::string& out_dir, const std::string& cache_dir) {
  EncodeOptions options;
  options.cache_dir = cache_dir.empty() ? (std::filesystem::path(out_dir) / "data_cache").string() : cache_dir;
  options.rules = {config.data.max_len, config.data.max_len_ratio};
  options.threads = static_cast<int>(config.train.threads);
  TrainingData data;
  data.ids = special_ids(vocabs);
  const DataConfig& d = config.data;
  PreparedCorpus train = prepare_encoded_corpus("train", d.train_src, d.train_tgt, *vocabs.src, *vocabs.tgt, options);
  data.train = train.corpus;
  data.train_reused = train.reused;
  if (!d.valid_src.empty()) {
    options.rules.max_len_ratio = 0;  // validation pairs are trusted translations
    PreparedCorpus valid = prepare_encoded_corpus("valid", d.valid_src, d.valid_tgt, *vocabs.src, *vocabs.tgt, options);
    data.valid = valid.corpus;
    data.valid_reused = valid.reused;
  }
  return data;
}

BatchIterator make_train_iterator(const TrainingData& data, const Config& config) {
  return BatchIterator(data.train, config.train.batch_tokens, static_cast<uint64_t>(config.train.seed), data.ids);
}

std::vector<Batch> make_valid_batches(const TrainingData& data, const Config& config) {
  if (!data.valid) return {};
  return make_sorted_batches(*data.valid, config.train.batch_tokens, data.ids);
}

}  // namespace nmt::data
