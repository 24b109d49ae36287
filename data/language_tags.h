// The pairs a model trained on several directions translates, and the tag
// that asks for each: with data.target_language_tags, every corpus's tag
// names its target language ("<2en>"), sits after sos before the source
// sentence in training, and translation into that language puts it in the
// same place. The model directory's config.json records the convention (the
// flag and the corpora with their tags and languages); the translator and
// the server read it back from there. Without the flag, a model translates
// its one pair (data/language_pair.h) and tags, if any, mark kinds of data.
#pragma once

#include <string>
#include <vector>

#include "util/config.h"

namespace nmt::data {

struct TaggedPair {
  std::string source, target;  // language codes
  std::string tag;             // the target's tag, put after sos
};

// Every (source, target) of the corpora once, in their order, with the
// target's tag; with data.target_tags (a multilingual model from elsewhere)
// each of them from data.src_lang ("" where the model does not say); empty
// without either. UsageError naming
// the corpus when one has no tag, a language that its files' names do not
// tell (and no src_lang/tgt_lang), or a tag that is not its target's alone.
std::vector<TaggedPair> tagged_pairs(const DataConfig& data);

// The pair of `pairs` from `source` to `target`; null when it has none.
const TaggedPair* find_pair(const std::vector<TaggedPair>& pairs, const std::string& source,
                            const std::string& target);

// "de->en, en->de"
std::string describe_pairs(const std::vector<TaggedPair>& pairs);

// The tag the validation set's sources carry: its pair's (languages from
// data.valid_src/valid_tgt's names, else the first corpus's); "" without
// data.target_language_tags. UsageError when the model has no such pair.
std::string validation_tag(const DataConfig& data);

}  // namespace nmt::data
