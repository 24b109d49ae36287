#include "interop/imported_model.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "storage/checkpoint.h"
#include "storage/decoding_choice.h"
#include "util/atomic_directory.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::interop {
namespace fs = std::filesystem;

namespace {

std::shared_ptr<const vocab::SentencePieceVocab> segmenter(const std::string& path) {
  return path.empty() ? nullptr : vocab::SentencePieceVocab::load_segmenter(path);
}

// Our configuration of an imported model: its model options and, where the
// format names one, its language pair.
Config config_of(const ImportedModel& m) {
  Config config;
  config.model = m.model;
  config.data.src_lang = m.source_lang;
  config.data.tgt_lang = m.target_lang;
  config.data.target_tags = m.target_tags;
  // The vocabulary as read, not a default of one trained here.
  config.vocab.size = std::max<int64_t>(16, static_cast<int64_t>(m.tgt_tokens.size()));  // 16: the least vocab.size takes
  config.vocab.joint = m.joint;
  return config;
}

model::Transformer build_model(const ImportedModel& m) {
  model::Transformer t(m.model);
  storage::load_state_dict(*t, m.weights, m.origin);
  return t;
}

// A side's SentencePiece model copied into vocab/ as NAME.spm and named in
// the manifest under KEY_pieces (key: the side, "src" or "tgt").
void copy_pieces(const std::string& from, const std::string& vocab_dir, const std::string& name,
                 nlohmann::json& manifest, const std::string& key = "src") {
  if (from.empty()) return;
  const std::string file = name + ".spm";
  if (!fs::exists(vocab_dir + "/" + file)) fs::copy_file(from, vocab_dir + "/" + file);
  manifest[key + "_pieces"] = file;
}

}  // namespace

vocab::Vocabularies imported_vocabularies(const ImportedModel& m) {
  vocab::Vocabularies v;
  v.joint = m.joint && m.src_pieces == m.tgt_pieces;
  v.src = std::make_shared<const vocab::TokenListVocab>(m.src_tokens, m.origin + " (source vocabulary)", m.roles,
                                                         segmenter(m.src_pieces));
  v.tgt = v.joint ? v.src
                  : std::make_shared<const vocab::TokenListVocab>(m.tgt_tokens, m.origin + " (target vocabulary)",
                                                                   m.roles, segmenter(m.tgt_pieces));
  return v;
}

storage::LoadedModel load_imported(const ImportedModel& m, const torch::Device& device) {
  storage::LoadedModel out;
  out.config = config_of(m);
  out.vocabs = imported_vocabularies(m);
  out.model = build_model(m);
  out.model->to(device);
  out.model->eval();
  out.checkpoint_path = m.origin;
  out.why = m.format + "'s format";
  out.decoding = m.decoding;
  return out;
}

void write_native_model_dir(const ImportedModel& m, const std::string& out_dir) {
  std::error_code ec;
  if (fs::exists(out_dir, ec)) {
    throw UsageError("--out " + out_dir + " exists; name a new directory for the imported model.");
  }
  write_directory_atomically(out_dir, "the imported model", [&](const fs::path& tmp) {
    const storage::ModelDirPaths paths(tmp.string());
    fs::create_directories(paths.vocab_dir);
    fs::create_directories(paths.checkpoints);
    const auto vocabs = imported_vocabularies(m);
    const auto& src = static_cast<const vocab::TokenListVocab&>(*vocabs.src);
    const auto& tgt = static_cast<const vocab::TokenListVocab&>(*vocabs.tgt);
    nlohmann::json manifest = {{"format", 1},
                               {"joint", vocabs.joint},
                               {"src", vocabs.joint ? "tokens.txt" : "src.txt"},
                               {"tgt", vocabs.joint ? "tokens.txt" : "tgt.txt"},
                               {"settings", {{"type", "tokens"}, {"imported_from", m.format}}},
                               {"roles",
                                {{"unk", m.roles.unk},
                                 {"bos", m.roles.bos},
                                 {"eos", m.roles.eos},
                                 {"pad", m.roles.pad}}}};
    vocab::write_token_list(src.tokens(), paths.vocab_dir + "/" + manifest["src"].get<std::string>());
    if (!vocabs.joint) vocab::write_token_list(tgt.tokens(), paths.vocab_dir + "/tgt.txt");
    copy_pieces(m.src_pieces, paths.vocab_dir, "src", manifest);
    copy_pieces(m.tgt_pieces, paths.vocab_dir, m.tgt_pieces == m.src_pieces ? "src" : "tgt", manifest, "tgt");
    write_file_atomically(paths.vocab_dir + "/vocab.json", manifest.dump(2) + "\n");
    const Config config = config_of(m);
    write_file_atomically(paths.config, config_to_json(config).dump(2) + "\n");
    storage::Checkpoint checkpoint;
    checkpoint.config = config_to_json(config);
    checkpoint.weights = storage::state_dict_of(*build_model(m));
    checkpoint.state = {{"step", 0}, {"imported_from", m.origin}, {"format", m.format}};
    storage::save_checkpoint(paths.last, checkpoint);
    storage::write_decoding_choice(paths.decoding, m.decoding);
  });
}

}  // namespace nmt::interop
