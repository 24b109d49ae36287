// The length profile of a model's training corpora (storage/length_profile.h):
// what the trainer writes to DIR/lengths.json, and what the translator
// computes from a model directory's data cache when the directory predates
// that file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/encoded_corpus.h"
#include "storage/length_profile.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace nmt::data {

// Every pair's lengths; the openers and final marks from an even sample of
// at most 200,000 pairs.
storage::LengthProfile corpus_length_profile(const std::vector<const EncodedCorpus*>& corpora,
                                             const vocab::Vocabularies& vocabs);

// The encoded training corpora in the data cache of `model_dir` (config's
// data.cache_dir, else DIR/data_cache), one per corpus of the config; empty
// when any is missing or damaged.
std::vector<std::shared_ptr<const EncodedCorpus>> cached_training_corpora(const std::string& model_dir,
                                                                          const Config& config);

}  // namespace nmt::data
