// One entry for every model the translator and the server take, recognized
// by its contents: a model directory of ours (config.json, vocab/,
// checkpoints/), a CTranslate2 model directory (model.bin), or an Argos
// Translate package (metadata.json and model/, or a .argosmodel file), or a
// Marian model folder (decoder.yml or model.npz).
#pragma once

#include <string>

#include <torch/types.h>

#include "interop/imported_model.h"
#include "storage/model_dir.h"

namespace nmt::interop {

// The kind of model at path: "native", "ctranslate2", "argos", "marian", or empty when
// it is none this program reads.
std::string model_format(const std::string& path);

// Loads the model at path in eval mode on device. `checkpoint` names one of
// a native directory's checkpoints (empty: its own choice); for other
// formats it must be empty. A DataError names the path and what is wrong.
storage::LoadedModel load_model(const std::string& path, const std::string& checkpoint, const torch::Device& device);

// Reads a model from elsewhere (translator --import). A native directory
// or an unknown path is a DataError saying what it takes.
ImportedModel import_model(const std::string& path);

}  // namespace nmt::interop
