// One SentencePiece model: encoding, decoding and its special ids. The model
// runs inside the bridge library (vocab/spm_bridge_loader.h); this class is
// the only way the rest of the program talks to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct nmt_spm_model;

namespace nmt::vocab {

class SentencePieceVocab {
 public:
  // Loads a model file. Throws nmt::DataError naming the file when it is
  // missing, not a SentencePiece model, or lacks a pad, bos or eos id.
  explicit SentencePieceVocab(const std::string& path);
  static std::shared_ptr<const SentencePieceVocab> load(const std::string& path);
  ~SentencePieceVocab();
  SentencePieceVocab(const SentencePieceVocab&) = delete;
  SentencePieceVocab& operator=(const SentencePieceVocab&) = delete;

  // Subword ids of text, without bos/eos. Thread-safe.
  std::vector<int32_t> encode(std::string_view text) const;
  // The same into a caller's buffer (replaced), to avoid an allocation per line.
  void encode_into(std::string_view text, std::vector<int32_t>& ids) const;
  std::vector<std::string> encode_pieces(std::string_view text) const;
  // Ids with the bytes of `text` each stands for (begin == end for a piece
  // that normalization made up, such as a leading "▁").
  struct IdSpan {
    int32_t id;
    uint32_t begin, end;
  };
  std::vector<IdSpan> encode_with_offsets(std::string_view text) const;

  // Text of ids: stops at the first eos, skips pad and bos. Ids outside the
  // vocabulary are a DataError.
  std::string decode(const std::vector<int32_t>& ids) const;
  std::string decode(const std::vector<int64_t>& ids) const;

  int64_t size() const { return size_; }
  int32_t unk_id() const { return unk_id_; }
  int32_t pad_id() const { return pad_id_; }
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  std::string id_to_piece(int32_t id) const;
  // The id of a piece (a tag such as "<BT>"); -1 when the model has none.
  int32_t piece_id(std::string_view piece) const;
  const std::string& path() const { return path_; }

 private:
  std::string decode_filtered(std::vector<int32_t> kept) const;

  std::string path_;
  nmt_spm_model* model_ = nullptr;
  int64_t size_ = 0;
  int32_t unk_id_ = -1, pad_id_ = -1, bos_id_ = -1, eos_id_ = -1;
};

}  // namespace nmt::vocab
