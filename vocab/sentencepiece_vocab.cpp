#include "vocab/sentencepiece_vocab.h"

#include <filesystem>

#include "util/error.h"
#include "vocab/spm_bridge_loader.h"

namespace nmt::vocab {
namespace {

void require_id(int32_t id, const char* name, const std::string& path) {
  if (id < 0) {
    throw DataError("The SentencePiece model " + path + " has no " + name +
                    " id; this program needs unk, pad, bos and eos ids (train it with "
                    "--unk_id=0 --pad_id=1 --bos_id=2 --eos_id=3).");
  }
}

template <typename Id>
std::vector<int32_t> strip_specials(const std::vector<Id>& ids, int32_t pad, int32_t bos, int32_t eos) {
  std::vector<int32_t> kept;
  kept.reserve(ids.size());
  for (Id id : ids) {
    if (id == eos) break;
    if (id == pad || id == bos) continue;
    kept.push_back(static_cast<int32_t>(id));
  }
  return kept;
}

}  // namespace

SentencePieceVocab::SentencePieceVocab(const std::string& path, bool needs_specials) {
  path_ = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw DataError("The SentencePiece model " + path + " does not exist or is not a file.");
  }
  const SpmBridge& b = spm_bridge();
  char* error = nullptr;
  if (b.load(path.c_str(), &model_, &error) != 0) {
    throw DataError("Cannot load the SentencePiece model " + path + ": " + b.take_error(error));
  }
  size_ = b.piece_size(model_);
  unk_id_ = b.unk_id(model_);
  pad_id_ = b.pad_id(model_);
  bos_id_ = b.bos_id(model_);
  eos_id_ = b.eos_id(model_);
  if (!needs_specials) return;
  try {
    require_id(unk_id_, "unknown (unk)", path);
    require_id(pad_id_, "padding (pad)", path);
    require_id(bos_id_, "begin (bos)", path);
    require_id(eos_id_, "end (eos)", path);
  } catch (...) {
    b.unload(model_);
    throw;
  }
}

std::shared_ptr<const SentencePieceVocab> SentencePieceVocab::load(const std::string& path) {
  return std::make_shared<const SentencePieceVocab>(path);
}

std::shared_ptr<const SentencePieceVocab> SentencePieceVocab::load_segmenter(const std::string& path) {
  return std::make_shared<const SentencePieceVocab>(path, false);
}

SentencePieceVocab::~SentencePieceVocab() {
  if (model_ != nullptr) spm_bridge().unload(model_);
}

void SentencePieceVocab::encode_into(std::string_view text, std::vector<int32_t>& ids) const {
  const SpmBridge& b = spm_bridge();
  // A line rarely has more pieces than bytes; the bridge says when it has.
  size_t capacity = text.size() + 8;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ids.resize(capacity);
    size_t count = 0;
    char* error = nullptr;
    if (b.encode_ids(model_, text.data(), text.size(), ids.data(), ids.size(), &count, &error) != 0) {
      throw DataError("SentencePiece (" + path_ + ") cannot encode a line: " + b.take_error(error));
    }
    if (count <= capacity) {
      ids.resize(count);
      return;
    }
    capacity = count;
  }
  throw DataError("SentencePiece (" + path_ + ") gave inconsistent piece counts for one line.");
}

std::vector<SentencePieceVocab::IdSpan> SentencePieceVocab::encode_with_offsets(std::string_view text) const {
  const SpmBridge& b = spm_bridge();
  size_t capacity = text.size() + 8;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<int32_t> ids(capacity);
    std::vector<uint32_t> begins(capacity), ends(capacity);
    size_t count = 0;
    char* error = nullptr;
    if (b.encode_offsets(model_, text.data(), text.size(), ids.data(), begins.data(), ends.data(), capacity, &count,
                         &error) != 0) {
      throw DataError("SentencePiece (" + path_ + ") cannot encode a line: " + b.take_error(error));
    }
    if (count <= capacity) {
      std::vector<IdSpan> out(count);
      for (size_t i = 0; i < count; ++i) out[i] = {ids[i], begins[i], ends[i]};
      return out;
    }
    capacity = count;
  }
  throw DataError("SentencePiece (" + path_ + ") gave inconsistent piece counts for one line.");
}

std::vector<std::string> SentencePieceVocab::encode_pieces(std::string_view text) const {
  const SpmBridge& b = spm_bridge();
  char* out = nullptr;
  size_t out_len = 0;
  char* error = nullptr;
  if (b.encode_pieces(model_, text.data(), text.size(), &out, &out_len, &error) != 0) {
    throw DataError("SentencePiece (" + path_ + ") cannot encode a line: " + b.take_error(error));
  }
  std::vector<std::string> pieces;
  for (size_t start = 0; start < out_len;) {
    std::string piece(out + start);  // each piece ends with a NUL byte
    start += piece.size() + 1;
    pieces.push_back(std::move(piece));
  }
  b.free_(out);
  return pieces;
}

std::string SentencePieceVocab::decode_filtered(std::vector<int32_t> kept) const {
  const SpmBridge& b = spm_bridge();
  char* out = nullptr;
  size_t out_len = 0;
  char* error = nullptr;
  if (b.decode_ids(model_, kept.data(), kept.size(), &out, &out_len, &error) != 0) {
    throw DataError("SentencePiece (" + path_ + ") cannot decode: " + b.take_error(error));
  }
  std::string text(out, out_len);
  b.free_(out);
  return text;
}

std::string SentencePieceVocab::decode(const std::vector<int32_t>& ids) const {
  return decode_filtered(strip_specials(ids, pad_id_, bos_id_, eos_id_));
}

std::string SentencePieceVocab::decode(const std::vector<int64_t>& ids) const {
  return decode_filtered(strip_specials(ids, pad_id_, bos_id_, eos_id_));
}

std::string SentencePieceVocab::id_to_piece(int32_t id) const {
  const char* piece = spm_bridge().id_to_piece(model_, id);
  if (piece == nullptr) {
    throw DataError("Id " + std::to_string(id) + " is outside the vocabulary of " + path_ + " (" +
                    std::to_string(size_) + " pieces).");
  }
  return piece;
}

int32_t SentencePieceVocab::piece_id(std::string_view piece) const {
  for (int32_t id = 0; id < static_cast<int32_t>(size_); ++id) {
    const char* p = spm_bridge().id_to_piece(model_, id);
    if (p != nullptr && piece == p) return id;
  }
  return -1;
}

}  // namespace nmt::vocab
