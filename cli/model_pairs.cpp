#include "cli/model_pairs.h"

#include "data/language_pair.h"
#include "util/error.h"

namespace nmt::cli {

std::vector<data::TaggedPair> model_pairs(const storage::LoadedModel& loaded, const std::string& model_dir) {
  auto pairs = data::tagged_pairs(loaded.config.data);
  if (!pairs.empty() && !pairs.front().source.empty()) return pairs;
  if (!pairs.empty()) {
    throw DataError("The model " + model_dir + " translates into " + std::to_string(pairs.size()) +
                    " languages but does not say from which, which the server needs: import it (translator --import " +
                    model_dir + " --out DIR), set data.src_lang in DIR/config.json, and serve DIR.");
  }
  const auto pair = data::language_pair(loaded.config.data);
  if (!pair.known() && loaded.decoding && !loaded.decoding->engine.empty()) {
    // A model from elsewhere that records no pair (a CTranslate2 directory).
    throw DataError("The " + loaded.decoding->engine + " model " + model_dir +
                    " does not say which languages it translates, which the server needs: import it "
                    "(translator --import " + model_dir + " --out DIR), set data.src_lang and data.tgt_lang in "
                    "DIR/config.json, and serve DIR.");
  }
  if (!pair.known()) {
    const CorpusConfig first = loaded.config.data.training_corpora().front();
    throw DataError("The model directory " + model_dir + " does not say which languages it translates: set " +
                    "data.src_lang and data.tgt_lang in " + storage::ModelDirPaths(model_dir).config +
                    " (the training files' names, " + first.src + " and " + first.tgt +
                    ", end in no language code such as .de or .en).");
  }
  return {{pair.source, pair.target, ""}};
}

data::TaggedPair choose_pair(const storage::LoadedModel& loaded, const std::string& model_dir, const std::string& source,
                             const std::string& target) {
  const bool tagged = loaded.config.data.target_language_tags || !loaded.config.data.target_tags.empty();
  if (!tagged && source.empty() && target.empty()) {
    const auto pair = data::language_pair(loaded.config.data);
    return {pair.source, pair.target, ""};
  }
  // Translating from the command line needs no source language where the model names none.
  const auto pairs = tagged ? data::tagged_pairs(loaded.config.data) : model_pairs(loaded, model_dir);
  std::vector<data::TaggedPair> matching;
  for (const auto& p : pairs) {
    const bool source_fits = source.empty() || p.source.empty() || p.source == source;
    if (source_fits && (target.empty() || p.target == target)) matching.push_back(p);
  }
  if (matching.size() == 1) return matching.front();
  const std::string asked = (source.empty() ? "any" : source) + "->" + (target.empty() ? "any" : target);
  if (matching.empty()) {
    throw UsageError("The model " + model_dir + " does not translate " + asked + "; it translates " +
                     data::describe_pairs(pairs) + ".");
  }
  throw UsageError("The model " + model_dir + " translates " + data::describe_pairs(pairs) +
                   "; choose one with --source-lang and --target-lang" +
                   (source.empty() && target.empty() ? "" : " (" + asked + " matches " +
                                                                 data::describe_pairs(matching) + ")") +
                   ".");
}

}  // namespace nmt::cli
