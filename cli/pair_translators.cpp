#include "cli/pair_translators.h"

#include "serve/text_translation.h"

namespace nmt::cli {

PairTranslators pair_translators(const storage::LoadedModel& loaded, const std::vector<data::TaggedPair>& pairs,
                                 const decode::TranslatorOptions& options, const std::string& name,
                                 const std::string& description) {
  PairTranslators out;
  for (const auto& pair : pairs) {
    decode::TranslatorOptions o = options;
    o.source_tag = pair.tag;
    out.translators.push_back(std::make_unique<decode::Translator>(loaded.model, loaded.vocabs,
                                                                   serve::serving_options(o, pair.source, pair.target)));
    serve::ModelEntry entry;
    entry.translator = out.translators.back().get();
    entry.pair = {pair.source, pair.target};
    entry.name = name;
    entry.description = description + (pair.tag.empty() ? "" : " with the language tag " + pair.tag);
    out.entries.push_back(std::move(entry));
  }
  return out;
}

}  // namespace nmt::cli
