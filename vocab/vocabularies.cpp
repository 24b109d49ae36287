#include "vocab/vocabularies.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "util/config.h"
#include "util/error.h"
#include "vocab/vocab_trainer.h"

namespace nmt::vocab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kFormat = 1;

// What decides the vocabulary; a reused OUT/vocab/ must have been made with the same.
json settings_of(const Config& config) {
  const VocabConfig& v = config.vocab;
  if (!v.model.empty()) return {{"model", fs::absolute(v.model).lexically_normal().string()}};
  return {{"type", v.type}, {"size", v.size}, {"joint", v.joint}};
}

void write_json_atomically(const json& j, const fs::path& path) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) throw DataError("Cannot write " + tmp.string() + ".");
  }
  fs::rename(tmp, path);
}

json read_manifest(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw DataError("Cannot read " + path.string() + ".");
  try {
    json j = json::parse(in);
    if (j.at("format").get<int>() != kFormat) throw DataError(path.string() + " has an unknown format.");
    j.at("src").get<std::string>();
    j.at("tgt").get<std::string>();
    j.at("joint").get<bool>();
    return j;
  } catch (const json::exception& e) {
    throw DataError(path.string() + " is damaged: " + e.what());
  }
}

Vocabularies load_manifest(const fs::path& dir, const json& manifest) {
  Vocabularies v;
  v.joint = manifest["joint"].get<bool>();
  v.src = SentencePieceVocab::load((dir / manifest["src"].get<std::string>()).string());
  v.tgt = v.joint ? v.src : SentencePieceVocab::load((dir / manifest["tgt"].get<std::string>()).string());
  return v;
}

void copy_model(const std::string& from, const fs::path& to) {
  SentencePieceVocab check(from);  // refuses a model without pad/bos/eos before copying it
  const fs::path tmp = to.string() + ".tmp";
  std::error_code ec;
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec) throw DataError("Cannot copy the vocabulary " + from + " to " + tmp.string() + ": " + ec.message() + ".");
  fs::rename(tmp, to);
}

// Trains into a temporary prefix, then renames, so a crash leaves no model
// that looks finished.
void train_model(const std::vector<std::string>& files, const fs::path& dir, const std::string& name,
                 const VocabTrainOptions& options) {
  const fs::path tmp_prefix = dir / (".training-" + name);
  train_sentencepiece(files, tmp_prefix.string(), options);
  fs::rename(tmp_prefix.string() + ".vocab", dir / (name + ".vocab"));
  fs::rename(tmp_prefix.string() + ".model", dir / (name + ".model"));
}

}  // namespace

Vocabularies prepare_vocabularies(const Config& config, const std::string& out_dir) {
  const fs::path dir = fs::path(out_dir) / "vocab";
  const fs::path manifest_path = dir / "vocab.json";
  const json wanted = settings_of(config);
  std::error_code ec;
  if (fs::exists(manifest_path, ec)) {
    json manifest = read_manifest(manifest_path);
    if (manifest.value("settings", json()) != wanted) {
      throw DataError(manifest_path.string() + " was made with vocabulary settings " +
                      manifest.value("settings", json()).dump() + " but the configuration asks for " +
                      wanted.dump() + "; use another output directory.");
    }
    Vocabularies v = load_manifest(dir, manifest);
    v.reused = true;
    return v;
  }
  fs::create_directories(dir, ec);
  if (ec) throw DataError("Cannot create " + dir.string() + ": " + ec.message() + ".");

  const VocabConfig& vc = config.vocab;
  json manifest = {{"format", kFormat}, {"settings", wanted}};
  if (!vc.model.empty()) {
    copy_model(vc.model, dir / "spm.model");
    manifest.update({{"joint", true}, {"src", "spm.model"}, {"tgt", "spm.model"}});
  } else {
    VocabTrainOptions options;
    options.type = vc.type;
    options.size = vc.size;
    options.max_lines = vc.max_train_lines;
    options.seed = static_cast<uint64_t>(config.train.seed);
    options.threads = static_cast<int>(config.train.threads);
    const std::string& src = config.data.train_src;
    const std::string& tgt = config.data.train_tgt;
    if (vc.joint) {
      train_model({src, tgt}, dir, "spm", options);
      manifest.update({{"joint", true}, {"src", "spm.model"}, {"tgt", "spm.model"}});
    } else {
      train_model({src}, dir, "src", options);
      train_model({tgt}, dir, "tgt", options);
      manifest.update({{"joint", false}, {"src", "src.model"}, {"tgt", "tgt.model"}});
    }
  }
  Vocabularies v = load_manifest(dir, manifest);
  write_json_atomically(manifest, manifest_path);  // last: marks the directory complete
  return v;
}

Vocabularies load_vocabularies(const std::string& model_dir) {
  const fs::path dir = fs::path(model_dir) / "vocab";
  const fs::path manifest_path = dir / "vocab.json";
  std::error_code ec;
  if (!fs::exists(manifest_path, ec)) {
    throw DataError(model_dir + " is not a model directory of this program: " + manifest_path.string() +
                    " is missing.");
  }
  return load_manifest(dir, read_manifest(manifest_path));
}

}  // namespace nmt::vocab
