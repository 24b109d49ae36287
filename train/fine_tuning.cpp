#include "train/fine_tuning.h"

#include <filesystem>

#include "storage/model_dir.h"
#include "util/config.h"
#include "util/error.h"

namespace nmt::train {
namespace {

using nlohmann::json;

// Model keys that change no weight's shape or meaning.
bool may_change(const std::string& key) {
  return key == "drop_prob" || key == "attention_dropout" || key == "activation_dropout";
}

void compare_section(const json& wanted, const json& run, const char* section, std::string& differences) {
  auto it = wanted.find(section);
  if (it == wanted.end() || !it->is_object()) return;
  for (auto item = it->begin(); item != it->end(); ++item) {
    if (std::string(section) == "model" && may_change(item.key())) continue;
    if (std::string(section) == "vocab" && item.key() == "max_train_lines") continue;
    const json there = run.contains(section) ? run[section].value(item.key(), json()) : json();
    if (item.value() != there) {
      differences += std::string(differences.empty() ? "" : "; ") + section + "." + item.key() + " is " +
                     there.dump() + " there, " + item.value().dump() + " here";
    }
  }
}

}  // namespace

FineTuningSource fine_tuning_source(const std::string& init_from) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(init_from, ec)) return {init_from, ""};
  const fs::path folder = fs::path(init_from).parent_path();
  const std::string run_dir = folder.parent_path().string();
  if (folder.filename() != "checkpoints" || !fs::exists(storage::ModelDirPaths(run_dir).config, ec)) {
    throw UsageError("--init-from " + init_from + " is a file but not a checkpoint in the checkpoints/ folder of a "
                     "run; name a run's output directory or one of its checkpoints (RUN_DIR/checkpoints/step-N.pt).");
  }
  return {run_dir, init_from};
}

json fine_tuning_config(const json& wanted, const FineTuningSource& source) {
  const std::string& run_dir = source.run_dir;
  const storage::ModelDirPaths paths(run_dir);
  if (!std::filesystem::exists(paths.config)) {
    throw UsageError("--init-from " + run_dir + ": " + paths.config + " is missing; name the output directory of a "
                     "finished run.");
  }
  const json run = read_json_file(paths.config);
  std::string differences;
  compare_section(wanted, run, "model", differences);
  compare_section(wanted, run, "vocab", differences);
  if (!differences.empty()) {
    throw UsageError("--init-from " + run_dir + " keeps that run's model shape and vocabulary, but the config changes "
                     "them: " + differences + ". Leave these keys out (or give the run's values).");
  }
  json merged = wanted;
  json model = run.at("model");
  if (wanted.contains("model") && wanted["model"].is_object()) {
    for (auto item = wanted["model"].begin(); item != wanted["model"].end(); ++item) model[item.key()] = item.value();
  }
  merged["model"] = model;
  merged["vocab"] = run.at("vocab");
  return merged;
}

FineTuningStart read_fine_tuning_start(const FineTuningSource& source, bool keep_optimizer) {
  const storage::ModelDirPaths paths(source.run_dir);
  FineTuningStart start;
  if (!source.checkpoint.empty()) {
    start.path = source.checkpoint;
    start.why = "the checkpoint named";
  } else if (keep_optimizer) {
    start.path = paths.last;
    start.why = "its last checkpoint";
  } else {
    const storage::CheckpointChoice choice = storage::choose_checkpoint(paths);
    start.path = choice.path;
    start.why = choice.why;
  }
  if (!std::filesystem::exists(start.path)) {
    throw DataError("--init-from " + source.named() + ": " + start.path +
                    " does not exist; the run has no checkpoint to start from.");
  }
  start.checkpoint = storage::load_checkpoint(
      start.path, keep_optimizer ? storage::CheckpointParts::kAll : storage::CheckpointParts::kWeights);
  return start;
}

}  // namespace nmt::train
