#include "interop/ct2_directory.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "interop/ct2_model_file.h"
#include "interop/ct2_transformer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "vocab/token_list_vocab.h"

namespace nmt::interop {
namespace fs = std::filesystem;
namespace {

nlohmann::json read_config(const fs::path& dir) {
  const fs::path p = dir / "config.json";
  std::error_code ec;
  if (!fs::exists(p, ec)) return nlohmann::json::object();
  try {
    auto j = nlohmann::json::parse(read_file_bytes(p.string()));
    if (!j.is_object()) throw DataError("The CTranslate2 configuration " + p.string() + " is not a JSON object.");
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw DataError("The CTranslate2 configuration " + p.string() + " is not valid JSON: " + e.what());
  }
}

// The vocabulary file of one side: NAME.json, else NAME.txt (CTranslate2's
// order); empty when neither.
std::string vocabulary_file(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  for (const char* ext : {".json", ".txt"}) {
    const fs::path p = dir / (name + ext);
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

void read_vocabularies(const fs::path& dir, ImportedModel& out) {
  const std::string shared = vocabulary_file(dir, "shared_vocabulary");
  std::string src = vocabulary_file(dir, "source_vocabulary"), tgt = vocabulary_file(dir, "target_vocabulary");
  if (!shared.empty()) {
    src = tgt = shared;
  } else if (src.empty() || tgt.empty()) {
    throw DataError("The CTranslate2 model " + dir.string() +
                    " has no vocabulary: shared_vocabulary.txt (or .json), or source_vocabulary and "
                    "target_vocabulary, is missing.");
  }
  out.joint = !shared.empty();
  out.src_tokens = vocab::read_token_list(src);
  out.tgt_tokens = out.joint ? out.src_tokens : vocab::read_token_list(tgt);
  // A tokenizer beside the model: SentencePiece models named as OPUS-MT's
  // conversions (and our --export ct2) name them, or one for both sides.
  std::error_code ec;
  if (fs::is_regular_file(dir / "source.spm", ec) && fs::is_regular_file(dir / "target.spm", ec)) {
    out.src_pieces = (dir / "source.spm").string();
    out.tgt_pieces = (dir / "target.spm").string();
  } else if (fs::is_regular_file(dir / "sentencepiece.model", ec)) {
    out.src_pieces = out.tgt_pieces = (dir / "sentencepiece.model").string();
  }
}

}  // namespace

bool is_ct2_model_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "model.bin", ec);
}

ImportedModel import_ct2_model(const std::string& dir_name) {
  const fs::path dir(dir_name);
  const auto file = read_ct2_model_file((dir / "model.bin").string());
  const auto config = read_config(dir);
  ImportedModel out;
  out.origin = dir_name;
  read_vocabularies(dir, out);
  import_ct2_transformer(file, config, out);
  return out;
}

}  // namespace nmt::interop
