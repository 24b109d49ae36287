// The server's entries for one loaded model: a translator per language pair
// the model translates (one, or each of a tagged model's), all on the one
// model, each with its pair's tag and languages.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/language_tags.h"
#include "decode/translation.h"
#include "serve/served_models.h"
#include "storage/model_dir.h"

namespace nmt::cli {

struct PairTranslators {
  std::vector<std::unique_ptr<decode::Translator>> translators;  // the entries point at these
  std::vector<serve::ModelEntry> entries;                        // a pair each
};

// A translator and an entry for each of `pairs` (cli::model_pairs of the
// model's directory). `options` is the decoding every pair shares; `name`
// and `description` label each entry (the description gains the pair's tag,
// if any).
PairTranslators pair_translators(const storage::LoadedModel& loaded, const std::vector<data::TaggedPair>& pairs,
                                 const decode::TranslatorOptions& options, const std::string& name,
                                 const std::string& description);

}  // namespace nmt::cli
