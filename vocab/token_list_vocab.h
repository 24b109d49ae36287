// A vocabulary that is a list of tokens, id = line number: CTranslate2's
// `*_vocabulary.txt` (or `.json`, an array), Marian's token lists. Text is
// tokens separated by spaces, in and out, as CTranslate2's own translator
// reads and writes them where no tokenizer comes with the model; with a
// SentencePiece model beside the list (Argos Translate packages, OPUS-MT's
// conversions), text is cut into that model's pieces and the pieces looked
// up in the list, whose order is the model's own, not SentencePiece's.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "vocab/sentencepiece_vocab.h"
#include "vocab/vocab.h"

namespace nmt::vocab {

// The tokens that play the special roles. A list without the unknown token
// gets it appended (as CTranslate2 does); one without any of the padding
// tokens gets the first of them appended, since the model masks by it.
struct TokenRoles {
  std::string unk = "<unk>", bos = "<s>", eos = "</s>";
  std::vector<std::string> pad = {"<blank>", "<pad>"};
  // A list without the start token gets it appended: a model whose decoder
  // starts from a zero vector (Marian's) never reads its row.
  bool append_bos = false;
};

class TokenListVocab final : public Vocab {
 public:
  // From a file: `.json` holds an array of strings, anything else a token a
  // line (a carriage return ending every line is dropped, as CTranslate2
  // does). A DataError names the file when it is unreadable, empty, has a
  // token twice, or lacks the bos or eos token.
  TokenListVocab(const std::string& path, const TokenRoles& roles = {},
                 std::shared_ptr<const SentencePieceVocab> pieces = nullptr);
  TokenListVocab(std::vector<std::string> tokens, const std::string& origin, const TokenRoles& roles = {},
                 std::shared_ptr<const SentencePieceVocab> pieces = nullptr);

  using Vocab::encode;
  void encode_into(std::string_view text, std::vector<int32_t>& ids) const override;
  std::vector<std::string> encode_pieces(std::string_view text) const override;
  std::vector<IdSpan> encode_with_offsets(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string id_to_piece(int32_t id) const override;
  int32_t piece_id(std::string_view piece) const override;
  std::string segmenter_path() const override { return pieces_ ? pieces_->path() : std::string(); }

  // Every token, in id order (the appended unk/pad included).
  const std::vector<std::string>& tokens() const { return tokens_; }
  // The SentencePiece model that cuts text into tokens; null: spaces do.
  const std::shared_ptr<const SentencePieceVocab>& pieces() const { return pieces_; }

 private:
  template <typename Id>
  std::string join(const std::vector<Id>& ids) const;
  int32_t id_of(const std::string& token) const;

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  std::shared_ptr<const SentencePieceVocab> pieces_;
  std::vector<int32_t> from_piece_, to_piece_;  // SentencePiece id -> ours, ours -> SentencePiece's (-1: none)
};

// Reads a token list file into its tokens (see the constructor).
std::vector<std::string> read_token_list(const std::string& path);
// The same from a file's bytes: a JSON array when `json`, else a token a line.
std::vector<std::string> parse_token_list(const std::string& bytes, bool json, const std::string& origin);

// Writes tokens a line, whole or not at all.
void write_token_list(const std::vector<std::string>& tokens, const std::string& path);

}  // namespace nmt::vocab
