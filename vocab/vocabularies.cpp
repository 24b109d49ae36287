#include "vocab/vocabularies.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "util/config.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_identity.h"
#include "vocab/token_list_vocab.h"
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
  json settings = {{"type", v.type}, {"size", v.size}, {"joint", v.joint}};
  if (!config.data.tags().empty()) settings["tags"] = config.data.tags();
  return settings;
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

// A token list's roles from the manifest ("roles": unk, bos, eos, pad), as
// an imported model's directory records them, and the SentencePiece model
// that cuts its text ("src_pieces", "tgt_pieces"), where it has one.
std::shared_ptr<const Vocab> load_side(const fs::path& dir, const json& manifest, const std::string& side) {
  const fs::path file = dir / manifest[side].get<std::string>();
  if (!manifest.contains("roles")) return load_vocab(file.string());
  try {
    const json& r = manifest["roles"];
    TokenRoles roles;
    roles.unk = r.at("unk").get<std::string>();
    roles.bos = r.at("bos").get<std::string>();
    roles.eos = r.at("eos").get<std::string>();
    roles.pad = r.at("pad").get<std::vector<std::string>>();
    std::shared_ptr<const SentencePieceVocab> pieces;
    if (manifest.contains(side + "_pieces")) {
      pieces = SentencePieceVocab::load_segmenter((dir / manifest.at(side + "_pieces").get<std::string>()).string());
    }
    return std::make_shared<const TokenListVocab>(file.string(), roles, pieces);
  } catch (const json::exception& e) {
    throw DataError((file.parent_path() / "vocab.json").string() + " has damaged token roles: " + e.what());
  }
}

Vocabularies load_manifest(const fs::path& dir, const json& manifest) {
  Vocabularies v;
  v.joint = manifest["joint"].get<bool>();
  v.src = load_side(dir, manifest, "src");
  v.tgt = v.joint ? v.src : load_side(dir, manifest, "tgt");
  return v;
}

// `checked`: loaded first, so that a SentencePiece model without pad, bos
// or eos is refused before it is copied (a run's own files were checked as
// that run's vocabularies, with their roles).
void copy_model(const std::string& from, const fs::path& to, bool checked = true) {
  if (checked) load_vocab(from);
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

std::vector<std::string> side_files(const Config& config, bool src, bool tgt) {
  std::vector<std::string> files;
  for (const CorpusConfig& c : config.data.training_corpora()) {
    if (src) files.push_back(c.src);
    if (tgt) files.push_back(c.tgt);
  }
  return files;
}

// Trains the model(s) into dir; returns the manifest's file entries.
json train_models(const Config& config, const fs::path& dir) {
  const VocabConfig& vc = config.vocab;
  VocabTrainOptions options;
  options.type = vc.type;
  options.size = vc.size;
  options.max_lines = vc.max_train_lines;
  options.seed = static_cast<uint64_t>(config.train.seed);
  options.threads = static_cast<int>(config.train.threads);
  options.user_symbols = config.data.tags();  // tags go before source sentences
  if (vc.joint) {
    train_model(side_files(config, true, true), dir, "spm", options);
    return {{"joint", true}, {"src", "spm.model"}, {"tgt", "spm.model"}};
  }
  train_model(side_files(config, true, false), dir, "src", options);
  options.user_symbols.clear();
  train_model(side_files(config, false, true), dir, "tgt", options);
  return {{"joint", false}, {"src", "src.model"}, {"tgt", "tgt.model"}};
}

// Where the data cache keeps a vocabulary trained on these files with these settings.
fs::path cached_vocabulary_dir(const Config& config, const std::string& out_dir, const json& settings) {
  Fnv1a h;
  h.text("nmt vocabulary 1");
  h.text(settings.dump());
  for (const std::string& file : side_files(config, true, true)) hash_file_identity(h, file);
  h.value(config.vocab.max_train_lines);
  h.value(config.train.seed);
  return fs::path(config.data.cache_dir_in(out_dir)) / ("vocab-" + hex_digest(h.digest()));
}

std::vector<std::string> model_files(const json& manifest) {
  std::vector<std::string> files = {manifest["src"].get<std::string>()};
  if (!manifest["joint"].get<bool>()) files.push_back(manifest["tgt"].get<std::string>());
  for (const char* key : {"src_pieces", "tgt_pieces"}) {
    if (manifest.contains(key) && std::find(files.begin(), files.end(), manifest[key]) == files.end()) {
      files.push_back(manifest[key].get<std::string>());
    }
  }
  return files;
}

// A copy of a finished OUT/vocab/ in the cache, made under a temporary name
// and renamed, so that a half-made copy is never taken. Failing to keep it
// costs a later run time, not this one: it is not an error.
void keep_in_cache(const fs::path& dir, const json& manifest, const fs::path& cached) {
  const fs::path tmp = cached.string() + temporary_suffix();
  std::error_code ec;
  try {
    fs::create_directories(tmp, ec);
    for (const std::string& file : model_files(manifest)) {
      if (!ec) fs::copy_file(dir / file, tmp / file, fs::copy_options::overwrite_existing, ec);
    }
    if (!ec) write_json_atomically(manifest, tmp / "vocab.json");
    if (!ec) fs::rename(tmp, cached, ec);
  } catch (const std::exception&) {
    ec = std::make_error_code(std::errc::io_error);
  }
  if (ec) fs::remove_all(tmp, ec);
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

  json manifest = {{"format", kFormat}, {"settings", wanted}};
  std::string cached_from;
  double seconds = 0;
  if (!config.vocab.model.empty()) {
    copy_model(config.vocab.model, dir / "spm.model");
    manifest.update({{"joint", true}, {"src", "spm.model"}, {"tgt", "spm.model"}});
  } else {
    const fs::path cached = cached_vocabulary_dir(config, out_dir, wanted);
    if (fs::exists(cached / "vocab.json", ec)) {
      const json files = read_manifest(cached / "vocab.json");
      for (const std::string& file : model_files(files)) copy_model((cached / file).string(), dir / file);
      manifest.update({{"joint", files["joint"]}, {"src", files["src"]}, {"tgt", files["tgt"]}});
      cached_from = cached.string();
    } else {
      const auto started = std::chrono::steady_clock::now();
      manifest.update(train_models(config, dir));
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      keep_in_cache(dir, manifest, cached);
    }
  }
  Vocabularies v = load_manifest(dir, manifest);
  v.cached_from = cached_from;
  v.seconds = seconds;
  write_json_atomically(manifest, manifest_path);  // last: marks the directory complete
  return v;
}

Vocabularies adopt_vocabularies(const std::string& run_dir, const std::string& out_dir) {
  const fs::path from = fs::path(run_dir) / "vocab", dir = fs::path(out_dir) / "vocab";
  load_vocabularies(run_dir);  // a run directory with usable vocabularies
  const json manifest = read_manifest(from / "vocab.json");
  std::error_code ec;
  if (fs::exists(dir / "vocab.json", ec)) {
    for (const std::string& file : model_files(manifest)) {
      if (!fs::exists(dir / file, ec) || read_file_bytes((dir / file).string()) != read_file_bytes((from / file).string())) {
        throw DataError((dir / file).string() + " is not the vocabulary of " + run_dir +
                        " that this run started from; use another output directory.");
      }
    }
  } else {
    fs::create_directories(dir, ec);
    if (ec) throw DataError("Cannot create " + dir.string() + ": " + ec.message() + ".");
    for (const std::string& file : model_files(manifest)) copy_model((from / file).string(), dir / file, false);
    write_json_atomically(manifest, dir / "vocab.json");
  }
  return load_manifest(dir, manifest);
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
