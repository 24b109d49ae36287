#include "storage/model_dir.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>

#include "storage/checkpoint.h"
#include "storage/state_dict.h"
#include "util/allocator.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::storage {

namespace fs = std::filesystem;

ModelDirPaths::ModelDirPaths(const std::string& r)
    : root(r),
      config(r + "/config.json"),
      vocab_dir(r + "/vocab"),
      checkpoints(r + "/checkpoints"),
      last(r + "/checkpoints/last.pt"),
      best(r + "/checkpoints/best.pt"),
      average(r + "/checkpoints/average.pt"),
      scores(r + "/checkpoints/scores.json"),
      decoding(r + "/decoding.json"),
      lengths(r + "/lengths.json"),
      metrics(r + "/metrics.jsonl"),
      log(r + "/train.log") {}

std::string ModelDirPaths::step_checkpoint(int64_t step) const {
  char name[64];
  std::snprintf(name, sizeof(name), "/step-%09lld.pt", static_cast<long long>(step));
  return checkpoints + name;
}

namespace {

// The best entry of scores.json whose file still exists; empty when the file
// is missing or unreadable (the plain order then decides).
CheckpointChoice choose_by_scores(const ModelDirPaths& paths) {
  if (!fs::exists(paths.scores)) return {};
  try {
    const auto scores = nlohmann::json::parse(read_file_bytes(paths.scores));
    const nlohmann::json* best = nullptr;
    std::string others;
    for (const auto& entry : scores.at("checkpoints")) {
      // Only files of this directory's checkpoints/ (the trainer writes bare names).
      const std::string file = entry.at("file").get<std::string>();
      if (file.find('/') != std::string::npos || !fs::exists(paths.checkpoints + "/" + file)) continue;
      if (!best || entry.at("score").get<double>() > best->at("score").get<double>()) best = &entry;
    }
    if (!best) return {};
    const bool bleu = scores.at("metric") == "bleu";
    auto describe = [&](const nlohmann::json& e) {
      return bleu ? fmt::format("BLEU {:.2f}", e.at("score").get<double>())
                  : fmt::format("loss {:.4f}", e.at("valid_loss").get<double>());
    };
    for (const auto& entry : scores.at("checkpoints")) {
      if (&entry != best) others += "; " + entry.at("file").get<std::string>() + " " + describe(entry);
    }
    return {paths.checkpoints + "/" + best->at("file").get<std::string>(),
            "final validation " + describe(*best) + " (beam " + std::to_string(scores.at("beam").get<int64_t>()) +
                ")" + others};
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

CheckpointChoice choose_checkpoint(const ModelDirPaths& paths) {
  CheckpointChoice choice = choose_by_scores(paths);
  if (!choice.path.empty()) return choice;
  if (fs::exists(paths.best)) return {paths.best, "best validation score during training"};
  if (fs::exists(paths.average)) return {paths.average, "the average of the last checkpoints (no validation)"};
  return {paths.last, "the newest checkpoint (no validation)"};
}

namespace {

// A model directory may come from anywhere: before a model is built from the
// checkpoint's configuration, its size must be backed by the weights the file
// actually holds, or a hostile config (d_model 10^6) would have the translator
// allocate terabytes. Counted: what every architecture option has at least
// (one embedding table of the larger vocabulary, each encoder and decoder
// layer's attention and feed-forward), and the positional table.
void check_config_fits_weights(const ModelConfig& m, const StateDict& weights, const std::string& origin) {
  const double d = static_cast<double>(m.d_model);
  const double per_layer = 4.0 * d * d + 2.0 * d * static_cast<double>(m.ffn_hidden);
  const double implied = d * static_cast<double>(std::max(m.enc_voc_size, m.dec_voc_size)) +
                         2.0 * static_cast<double>(m.n_layers) * per_layer + d * static_cast<double>(m.max_len);
  double held = 0;
  for (const auto& item : weights) held += static_cast<double>(item.second.numel());
  if (implied > 2.0 * held + double{1 << 24}) {
    throw DataError("Checkpoint " + origin + " describes a model of at least " + std::to_string(int64_t(implied)) +
                    " values (d_model " + std::to_string(m.d_model) + ", " + std::to_string(m.n_layers) +
                    " layers, vocabularies " + std::to_string(m.enc_voc_size) + "/" + std::to_string(m.dec_voc_size) +
                    ", max_len " + std::to_string(m.max_len) + ") but holds only " + std::to_string(int64_t(held)) +
                    " weights; the file is damaged or not what it claims.");
  }
}

}  // namespace

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
  if (checkpoint.empty()) {
    const CheckpointChoice choice = choose_checkpoint(paths);
    out.checkpoint_path = choice.path;
    out.why = choice.why;
  } else {
    out.checkpoint_path = checkpoint;
  }
  if (!fs::exists(out.checkpoint_path)) {
    throw DataError("No checkpoint to load: " + out.checkpoint_path + " does not exist.");
  }
  Checkpoint ckpt = load_checkpoint(out.checkpoint_path, CheckpointParts::kWeights);
  // The checkpoint's own model settings decide the architecture; they must
  // agree with the directory's config, or the vocabulary would not fit.
  if (!ckpt.config.contains("model")) {
    throw DataError("Checkpoint " + out.checkpoint_path + " has no model configuration; it is damaged or foreign.");
  }
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
  check_config_fits_weights(trained, ckpt.weights, out.checkpoint_path);
  out.model = model::Transformer(trained);
  load_state_dict(*out.model, ckpt.weights, out.checkpoint_path);
  out.model->to(device);
  out.model->eval();
  out.step = ckpt.step();
  out.decoding = read_decoding_choice(paths.decoding);
  out.lengths = read_length_profile(paths.lengths);
  ckpt = Checkpoint{};
  // The file's bytes and the staging copies of the weights are freed now;
  // without this the allocator (which keeps freed pages, util/allocator.h)
  // would hold them for the translator's lifetime.
  release_free_memory();
  return out;
}

}  // namespace nmt::storage
