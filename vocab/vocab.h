// What the rest of the program asks of a vocabulary: text to ids and back,
// its special ids and its pieces. Two kinds implement it: a SentencePiece
// model whose own ids are the model's (vocab/sentencepiece_vocab.h), and a
// list of tokens read from a file, as CTranslate2 and Marian keep them, with
// input split at spaces (vocab/token_list_vocab.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::vocab {

class Vocab {
 public:
  virtual ~Vocab() = default;

  // Ids of text, without bos/eos. Thread-safe.
  virtual void encode_into(std::string_view text, std::vector<int32_t>& ids) const = 0;
  std::vector<int32_t> encode(std::string_view text) const {
    std::vector<int32_t> ids;
    encode_into(text, ids);
    return ids;
  }
  virtual std::vector<std::string> encode_pieces(std::string_view text) const = 0;
  // Ids with the bytes of `text` each stands for (begin == end for a piece
  // that normalization made up, such as a leading "▁").
  struct IdSpan {
    int32_t id;
    uint32_t begin, end;
  };
  virtual std::vector<IdSpan> encode_with_offsets(std::string_view text) const = 0;

  // Text of ids: stops at the first eos, skips pad and bos. Ids outside the
  // vocabulary are a DataError.
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  virtual std::string decode(const std::vector<int64_t>& ids) const = 0;

  int64_t size() const { return size_; }
  int32_t unk_id() const { return unk_id_; }
  int32_t pad_id() const { return pad_id_; }
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  virtual std::string id_to_piece(int32_t id) const = 0;
  // The id of a piece (a tag such as "<BT>"); -1 when the vocabulary has none.
  virtual int32_t piece_id(std::string_view piece) const = 0;
  // The file it was read from.
  const std::string& path() const { return path_; }
  // The SentencePiece model that cuts its text into pieces (for a
  // SentencePiece vocabulary, its own file); empty where spaces do.
  virtual std::string segmenter_path() const = 0;

 protected:
  std::string path_;
  int64_t size_ = 0;
  int32_t unk_id_ = -1, pad_id_ = -1, bos_id_ = -1, eos_id_ = -1;
};

// Reads a vocabulary file by its name: a token list (`*.txt`, one token a
// line; `*.json`, an array of tokens) or else a SentencePiece model.
std::shared_ptr<const Vocab> load_vocab(const std::string& path);

}  // namespace nmt::vocab
