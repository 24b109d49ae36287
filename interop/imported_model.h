// What a reader of another engine's model hands the rest of the program: our
// model's configuration and weights under our names, the token lists of its
// vocabularies, and the decoding the source engine uses by default. From it
// come a loaded model (to translate and serve) and a native model directory
// (translator --import, then trainer --init-from).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/decoding_choice.h"
#include "storage/model_dir.h"
#include "storage/state_dict.h"
#include "util/config.h"
#include "vocab/token_list_vocab.h"

namespace nmt::interop {

struct ImportedModel {
  std::string origin;  // the file or directory it was read from
  std::string format;  // the engine, for messages: "CTranslate2"
  ModelConfig model;
  storage::StateDict weights;  // our names, float32
  std::vector<std::string> src_tokens, tgt_tokens;  // the vocabularies as read (before any appended token)
  bool joint = false;  // one vocabulary for both sides
  // SentencePiece models that cut each side's text into the lists' tokens;
  // empty: tokens separated by spaces.
  std::string src_pieces, tgt_pieces;
  vocab::TokenRoles roles;
  // The source engine's default search and its conventions (decoding.json
  // of the directory it becomes).
  storage::DecodingChoice decoding;
  // The language pair, where the format records one (data.src_lang,
  // data.tgt_lang of our config: the pair the server lists it under).
  std::string source_lang, target_lang;
  // A multilingual model's target languages and the tag that asks for each
  // (Marian's ">>deu<<" tokens), put before the source (data.target_tags).
  std::map<std::string, std::string> target_tags;
  // Files the model was unpacked into (a .argosmodel), kept while this is.
  std::shared_ptr<void> scratch;
};

// The vocabularies of `m` (the same object when joint).
vocab::Vocabularies imported_vocabularies(const ImportedModel& m);

// The model of `m` in eval mode on `device`, with its vocabularies, as
// storage::load_model_dir hands a directory of ours.
storage::LoadedModel load_imported(const ImportedModel& m, const torch::Device& device);

// A native model directory at out_dir (config.json, vocab/, checkpoints/last.pt,
// decoding.json): written to a temporary directory and renamed, so that a
// failure leaves nothing at out_dir. An existing out_dir is a UsageError.
void write_native_model_dir(const ImportedModel& m, const std::string& out_dir);

}  // namespace nmt::interop
