// Which language pairs a model directory translates, as its config.json
// records them: one pair, or with data.target_language_tags every pair of
// its corpora, each with its tag (data/language_tags.h). The command line
// picks one with --source-lang/--target-lang; the server serves them all.
#pragma once

#include <string>
#include <vector>

#include "data/language_tags.h"
#include "storage/model_dir.h"

namespace nmt::cli {

// Every pair the model translates (one, with an empty tag, for a model
// without language tags). DataError naming DIR/config.json when a model
// without tags does not say its languages.
std::vector<data::TaggedPair> model_pairs(const storage::LoadedModel& loaded, const std::string& model_dir);

// The pair --source-lang `source` and --target-lang `target` ask for (either
// may be empty: any); UsageError listing the model's pairs when none or
// several match. A model without language tags needs neither flag (its pair
// may be unknown then).
data::TaggedPair choose_pair(const storage::LoadedModel& loaded, const std::string& model_dir, const std::string& source,
                             const std::string& target);

}  // namespace nmt::cli
