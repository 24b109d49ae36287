#include "interop/model_loader.h"

#include <filesystem>

#include "interop/argos_package.h"
#include "interop/ct2_directory.h"
#include "interop/ct2_transformer.h"
#include "interop/marian_model.h"
#include "util/error.h"

namespace nmt::interop {
namespace fs = std::filesystem;

std::string model_format(const std::string& path) {
  std::error_code ec;
  if (is_ct2_model_dir(path)) return "ctranslate2";
  if (is_argos_package(path)) return "argos";
  if (is_marian_model_dir(path)) return "marian";
  if (fs::is_regular_file(fs::path(path) / "config.json", ec) && fs::is_directory(fs::path(path) / "vocab", ec)) {
    return "native";
  }
  return {};
}

storage::LoadedModel load_model(const std::string& path, const std::string& checkpoint, const torch::Device& device) {
  const std::string format = model_format(path);
  if (format != "ctranslate2" && format != "argos" && format != "marian") {
    return storage::load_model_dir(path, checkpoint, device);
  }
  if (!checkpoint.empty()) {
    const char* what = format == "argos" ? "an Argos Translate package" : format == "marian" ? "a Marian model" : "a CTranslate2 model";
    throw UsageError("--checkpoint " + checkpoint + " names a checkpoint, but " + path + " is " + what + ", which has none.");
  }
  return load_imported(import_model(path), device);
}

ImportedModel import_model(const std::string& path) {
  const std::string format = model_format(path);
  if (format == "ctranslate2") return import_ct2_model(path);
  if (format == "argos") return import_argos_package(path);
  if (format == "marian") return import_marian_model(path);
  if (format == "native") throw DataError(path + " is already a model directory of this program; nothing to import.");
  throw DataError(path + " is not a model this program can import: a CTranslate2 model directory (model.bin, "
                  "its vocabularies, config.json) or an Argos Translate package (a folder with metadata.json and "
                  "model/, or a .argosmodel file) or a Marian model folder (decoder.yml, model.npz, vocab.yml) is what --import "
                  "takes.");
}

}  // namespace nmt::interop
