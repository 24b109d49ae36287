#include "model/model_dir.h"

#include <cstdio>
#include <filesystem>

#include "model/checkpoint.h"
#include "model/state_dict.h"
#include "util/error.h"

namespace nmt::model {

namespace fs = std::filesystem;

ModelDirPaths::ModelDirPaths(const std::string& r)
    : root(r),
      config(r + "/config.json"),
      vocab_dir(r + "/vocab"),
      checkpoints(r + "/checkpoints"),
      last(r + "/checkpoints/last.pt"),
      best(r + "/checkpoints/best.pt"),
      metrics(r + "/metrics.jsonl"),
      log(r + "/train.log") {}

std::string ModelDirPaths::step_checkpoint(int64_t step) const {
  char name[64];
  std::snprintf(name, sizeof(name), "/step-%09lld.pt", static_cast<long long>(step));
  return checkpoints + name;
}

LoadedModel load_model_dir(const std::string& dir, const std::string& checkpoint, const torch::Device& device) {
  ModelDirPaths paths(dir);
  if (!fs::is_directory(dir)) throw DataError("Model directory " + dir + " does not exist.");
  if (!fs::exists(paths.config)) {
    throw DataError("Model directory " + dir + " has no config.json; is it a trainer output directory?");
  }
  LoadedModel out;
  try {
    out.config = config_from_json(read_json_file(paths.config), paths.config);
  } catch (const UsageError& e) {
    throw DataError(std::string("Model directory ") + dir + " has an unreadable config: " + e.what());
  }
  out.vocabs = vocab::load_vocabularies(dir);
  out.checkpoint_path = !checkpoint.empty()        ? checkpoint
                        : fs::exists(paths.best) ? paths.best
                                                 : paths.last;
  if (!fs::exists(out.checkpoint_path)) {
    throw DataError("No checkpoint to load: " + out.checkpoint_path + " does not exist.");
  }
  Checkpoint ckpt = load_checkpoint(out.checkpoint_path);
  // The checkpoint's own model settings decide the architecture; they must
  // agree with the directory's config, or the vocabulary would not fit.
  ModelConfig trained = model_config_from_json(ckpt.config.at("model"), out.checkpoint_path);
  if (!same_architecture(trained, out.config.model)) {
    throw DataError("Checkpoint " + out.checkpoint_path + " was trained with another model configuration than " +
                    paths.config + " describes.");
  }
  if (trained.enc_voc_size != out.vocabs.src->size() || trained.dec_voc_size != out.vocabs.tgt->size()) {
    throw DataError("Checkpoint " + out.checkpoint_path + " expects vocabularies of " +
                    std::to_string(trained.enc_voc_size) + "/" + std::to_string(trained.dec_voc_size) +
                    " pieces but " + paths.vocab_dir + " holds " + std::to_string(out.vocabs.src->size()) + "/" +
                    std::to_string(out.vocabs.tgt->size()) + ".");
  }
  out.model = Transformer(trained);
  load_state_dict(*out.model, ckpt.weights, out.checkpoint_path);
  out.model->to(device);
  out.model->eval();
  out.step = ckpt.step();
  return out;
}

}  // namespace nmt::model
