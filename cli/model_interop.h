// translator --import and --export: models of other engines in and out
// (interop/), with the lines they print.
#pragma once

#include <string>

#include "storage/model_dir.h"

namespace nmt::cli {

// --import PATH --out DIR: a model directory of ours from another engine's model.
int import_model_command(const std::string& path, const std::string& out_dir);

// --export FORMAT --out PATH of a loaded model of ours; FORMAT "ct2".
int export_model_command(const storage::LoadedModel& loaded, const std::string& format, const std::string& out);

}  // namespace nmt::cli
