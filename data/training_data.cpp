#include "data/training_data.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "data/language_tags.h"
#include "util/config.h"
#include "util/error.h"
#include "vocab/vocabularies.h"

namespace nmt::data {
namespace {

std::string describe_cache(const PreparedCorpus& p) {
  if (p.reused) return "id cache " + p.corpus->path() + " reused";
  const double pairs_per_s = p.seconds > 0 ? static_cast<double>(p.corpus->stats().read) / p.seconds : 0.0;
  char rate[64];
  std::snprintf(rate, sizeof rate, "encoded in %.1f s (%.0f pairs/s)", p.seconds, pairs_per_s);
  return std::string(rate) + " into " + p.corpus->path() + " (no cache to reuse: " + p.rebuilt_because + ")";
}

}  // namespace

bool TrainingData::train_reused() const {
  for (const PreparedCorpus& p : train_caches) {
    if (!p.reused) return false;
  }
  return !train_caches.empty();
}

SpecialIds special_ids(const vocab::Vocabularies& vocabs, const ModelConfig& model) {
  SpecialIds ids;
  ids.src = {vocabs.src->pad_id(), model.source_bos ? vocabs.src->bos_id() : -1,
             model.source_eos ? vocabs.src->eos_id() : -1};
  ids.tgt = {vocabs.tgt->pad_id(), vocabs.tgt->bos_id(), vocabs.tgt->eos_id()};
  return ids;
}

TrainingData prepare_training_data(const Config& config, const vocab::Vocabularies& vocabs,
                                   const std::string& out_dir) {
  EncodeOptions options;
  options.cache_dir = config.data.cache_dir_in(out_dir);
  const DataConfig& d = config.data;
  options.rules = {d.max_len, d.max_len_ratio, d.drop_identical, d.drop_duplicates};
  options.threads = static_cast<int>(config.train.threads);
  tagged_pairs(d);  // the language tags' convention holds (UsageError naming the corpus)
  TrainingData data;
  data.ids = special_ids(vocabs, config.model);
  std::vector<MixSource> sources;
  for (const CorpusConfig& c : d.training_corpora()) {
    MixSource s;
    s.name = c.src;
    s.weight = c.weight;
    if (!c.tag.empty()) {
      s.tag_id = vocabs.src->piece_id(c.tag);
      if (s.tag_id < 0) {
        throw DataError("The tag \"" + c.tag + "\" of the corpus " + c.src + " is not a piece of the source vocabulary " +
                        vocabs.src->path() + ": a vocabulary trained by a run has the tags of its data.corpora; a "
                        "given vocab.model, or the vocabulary of a run being fine-tuned, must already hold it (as a "
                        "user-defined symbol).");
      }
    }
    data.train_caches.push_back(prepare_encoded_corpus(c.src, c.tgt, *vocabs.src, *vocabs.tgt, options));
    s.corpus = data.train_caches.back().corpus;
    sources.push_back(std::move(s));
  }
  data.train = std::make_shared<const CorpusMix>(std::move(sources));
  if (!d.valid_src.empty()) {
    options.rules = {d.max_len, 0.0, false, false};  // validation pairs are trusted translations
    data.valid_cache = prepare_encoded_corpus(d.valid_src, d.valid_tgt, *vocabs.src, *vocabs.tgt, options);
    data.valid = data.valid_cache.corpus;
    const std::string tag = validation_tag(d);
    if (!tag.empty()) data.valid_tag_id = vocabs.src->piece_id(tag);
  }
  return data;
}

BatchIterator make_train_iterator(const TrainingData& data, const Config& config) {
  return BatchIterator(data.train, config.train.batch_tokens, static_cast<uint64_t>(config.train.seed), data.ids);
}

std::vector<Batch> make_valid_batches(const TrainingData& data, const Config& config) {
  if (!data.valid) return {};
  return make_sorted_batches(*data.valid, config.train.batch_tokens, data.ids, data.valid_tag_id);
}

std::vector<std::string> describe_training_data(const TrainingData& data) {
  std::vector<std::string> lines;
  const CorpusMix& mix = *data.train;
  for (size_t i = 0; i < mix.size(); ++i) {
    const MixSource& s = mix.source(i);
    std::string line = "corpus " + std::to_string(i + 1) + " (" + s.name + ")";
    if (mix.size() > 1) {
      std::ostringstream weight;
      weight << s.weight;
      line += ": weight " + weight.str() + ", " + std::to_string(mix.quota(i)) + " pairs an epoch";
    }
    if (s.tag_id >= 0) line += ", tagged";
    line += ": " + s.corpus->stats().summary() + "; " + describe_cache(data.train_caches[i]);
    lines.push_back(line);
  }
  if (data.valid) lines.push_back("validation data: " + data.valid->stats().summary() + "; " + describe_cache(data.valid_cache));
  return lines;
}

}  // namespace nmt::data
