#include "data/language_tags.h"

#include "data/language_pair.h"
#include "util/error.h"

namespace nmt::data {
namespace {

std::string corpus_language(const std::string& given, const std::string& path, const std::string& name,
                            const char* key) {
  if (!given.empty()) return given;
  const std::string code = language_code_of_path(path);
  if (code.empty()) {
    throw UsageError("Invalid configuration: " + name + " needs " + key + " with data.target_language_tags: the " +
                     "file name " + path + " ends in no language code such as .de or .en.");
  }
  return code;
}

}  // namespace

std::vector<TaggedPair> tagged_pairs(const DataConfig& data) {
  std::vector<TaggedPair> pairs;
  for (const auto& [target, tag] : data.target_tags) pairs.push_back({data.src_lang, target, tag});
  if (!pairs.empty() || !data.target_language_tags) return pairs;
  if (data.corpora.empty()) {
    throw UsageError("Invalid configuration: data.target_language_tags needs data.corpora, each with the tag of its "
                     "target language (e.g. {\"src\": \"train.de\", \"tgt\": \"train.en\", \"tag\": \"<2en>\"}).");
  }
  for (size_t i = 0; i < data.corpora.size(); ++i) {
    const CorpusConfig& c = data.corpora[i];
    const std::string name = "data.corpora[" + std::to_string(i) + "]";
    if (c.tag.empty()) {
      throw UsageError("Invalid configuration: " + name + " (" + c.src + ") has no tag; with " +
                       "data.target_language_tags every corpus's tag names its target language, e.g. \"<2en>\".");
    }
    TaggedPair p{corpus_language(c.src_lang, c.src, name, "src_lang"), corpus_language(c.tgt_lang, c.tgt, name, "tgt_lang"),
                 c.tag};
    for (const TaggedPair& q : pairs) {
      if ((q.target == p.target) != (q.tag == p.tag)) {
        throw UsageError("Invalid configuration: " + name + " tags its target " + p.target + " with \"" + p.tag +
                         "\", but an earlier corpus tags " + q.target + " with \"" + q.tag +
                         "\"; with data.target_language_tags each target language has one tag of its own.");
      }
    }
    if (!find_pair(pairs, p.source, p.target)) pairs.push_back(std::move(p));
  }
  return pairs;
}

const TaggedPair* find_pair(const std::vector<TaggedPair>& pairs, const std::string& source,
                            const std::string& target) {
  for (const TaggedPair& p : pairs) {
    if (p.source == source && p.target == target) return &p;
  }
  return nullptr;
}

std::string describe_pairs(const std::vector<TaggedPair>& pairs) {
  std::string out;
  for (const TaggedPair& p : pairs) out += (out.empty() ? "" : ", ") + p.source + "->" + p.target;
  return out;
}

std::string validation_tag(const DataConfig& data) {
  const auto pairs = tagged_pairs(data);
  if (pairs.empty() || data.valid_src.empty()) return "";
  std::string source = language_code_of_path(data.valid_src), target = language_code_of_path(data.valid_tgt);
  if (source.empty() || target.empty()) {
    source = pairs.front().source;
    target = pairs.front().target;
  }
  const TaggedPair* p = find_pair(pairs, source, target);
  if (!p) {
    throw UsageError("Invalid configuration: the validation set " + data.valid_src + " / " + data.valid_tgt + " is " +
                     source + "->" + target + ", a pair none of data.corpora trains (" + describe_pairs(pairs) + ").");
  }
  return p->tag;
}

}  // namespace nmt::data
