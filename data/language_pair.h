// The language pair a model translates, as codes such as "de" and "en": the
// config's data.src_lang / data.tgt_lang, else the codes that end the training
// files' names (train.de.gz, corpus.en).
#pragma once

#include <string>

#include "util/config.h"

namespace nmt::data {

struct LanguagePair {
  std::string source, target;  // empty when unknown
  bool known() const { return !source.empty() && !target.empty(); }
};

// The file's last extension (after dropping .gz) when it is a language code:
// "de" for "data/train.de.gz"; empty for "train.txt" and other file types.
std::string language_code_of_path(const std::string& path);

LanguagePair language_pair(const DataConfig& data);

}  // namespace nmt::data
