#include "data/language_pair.h"

#include <filesystem>
#include <set>

#include "util/language_code.h"

namespace nmt::data {

std::string language_code_of_path(const std::string& path) {
  std::filesystem::path p = std::filesystem::path(path).filename();
  if (p.extension() == ".gz") p = p.stem();
  std::string ext = p.extension().string();
  if (ext.size() < 2) return "";
  ext = ext.substr(1);
  // Extensions that look like ISO 639-3 codes but name a file type.
  static const std::set<std::string> not_languages = {"txt", "tsv", "csv", "tok", "bpe", "raw", "out", "src",
                                                      "tgt", "ref", "hyp", "xml", "sgm", "log", "dat", "cln"};
  return is_language_code(ext) && !not_languages.count(ext) ? ext : "";
}

LanguagePair language_pair(const DataConfig& data) {
  LanguagePair pair;
  const CorpusConfig first = data.training_corpora().front();
  pair.source = !data.src_lang.empty() ? data.src_lang : language_code_of_path(first.src);
  pair.target = !data.tgt_lang.empty() ? data.tgt_lang : language_code_of_path(first.tgt);
  return pair;
}

}  // namespace nmt::data
