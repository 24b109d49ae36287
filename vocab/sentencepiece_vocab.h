// One SentencePiece model: encoding, decoding and its special ids, which are
// the model's own. The model runs inside the bridge library
// (vocab/spm_bridge_loader.h); this class is the only way the rest of the
// program talks to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/vocab.h"

struct nmt_spm_model;

namespace nmt::vocab {

class SentencePieceVocab final : public Vocab {
 public:
  // Loads a model file. Throws nmt::DataError naming the file when it is
  // missing, not a SentencePiece model, or lacks a pad, bos or eos id.
  explicit SentencePieceVocab(const std::string& path, bool needs_specials = true);
  static std::shared_ptr<const SentencePieceVocab> load(const std::string& path);
  // A model that only cuts text into pieces for a token list
  // (vocab/token_list_vocab.h), whose own special ids are not needed:
  // another engine's model may have no pad id.
  static std::shared_ptr<const SentencePieceVocab> load_segmenter(const std::string& path);
  ~SentencePieceVocab() override;
  SentencePieceVocab(const SentencePieceVocab&) = delete;
  SentencePieceVocab& operator=(const SentencePieceVocab&) = delete;

  using Vocab::encode;
  void encode_into(std::string_view text, std::vector<int32_t>& ids) const override;
  std::vector<std::string> encode_pieces(std::string_view text) const override;
  std::vector<IdSpan> encode_with_offsets(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string id_to_piece(int32_t id) const override;
  int32_t piece_id(std::string_view piece) const override;
  std::string segmenter_path() const override { return path_; }

 private:
  std::string decode_filtered(std::vector<int32_t> kept) const;

  nmt_spm_model* model_ = nullptr;
};

}  // namespace nmt::vocab
