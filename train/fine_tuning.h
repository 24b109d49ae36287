// trainer --init-from RUN_DIR --config NEW.json: a new run that starts from
// a finished run's model, with its vocabulary and model shape, on NEW.json's
// data and training settings. The optimizer and the learning-rate schedule
// start afresh, or, with --init-keep-optimizer, go on from the run's last
// checkpoint (its Adam moments, its schedule and its step count: what
// continuing that run by hand on new data would do). --init-from may also
// name one checkpoint of a run (RUN_DIR/checkpoints/step-N.pt), which then
// takes the place of the run's own choice: e.g. a two-direction run's at a
// point of its budget, fine-tuned on one direction.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "storage/checkpoint.h"

namespace nmt::train {

// Where --init-from points: the run's directory, and the checkpoint file it
// names ("" for a run directory: the run's own choice). A file that is not in
// the checkpoints/ folder of a run is a UsageError naming it.
struct FineTuningSource {
  std::string run_dir;
  std::string checkpoint;
  const std::string& named() const { return checkpoint.empty() ? run_dir : checkpoint; }  // what --init-from said
};
FineTuningSource fine_tuning_source(const std::string& init_from);

// NEW.json (overrides applied) with the run's model and vocabulary sections.
// Keys of those sections that NEW.json gives with other values than the run
// are a UsageError naming each (dropout may change: it is no part of the
// shape).
nlohmann::json fine_tuning_config(const nlohmann::json& wanted, const FineTuningSource& source);

struct FineTuningStart {
  storage::Checkpoint checkpoint;  // the weights (with keep_optimizer: all of it)
  std::string path, why;           // which file, and why that one
};

// The checkpoint --init-from names, else the run's checkpoint that the
// translator would load (best.pt or average.pt by their scores), or last.pt
// with keep_optimizer. A missing or damaged file is a DataError naming it.
FineTuningStart read_fine_tuning_start(const FineTuningSource& source, bool keep_optimizer);

}  // namespace nmt::train
