#include "vocab/token_list_vocab.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "util/atomic_file.h"
#include "util/error.h"
#include "vocab/sentencepiece_vocab.h"

namespace nmt::vocab {
namespace {

std::vector<std::string> lines_of(const std::string& bytes) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    lines.emplace_back(bytes, start, end - start);
    start = end + 1;
  }
  // Carriage returns are part of the tokens unless every line ends with one.
  bool all_cr = !lines.empty();
  for (const auto& line : lines) all_cr = all_cr && !line.empty() && line.back() == '\r';
  if (all_cr) {
    for (auto& line : lines) line.pop_back();
  }
  return lines;
}

// Calls f(begin, end) for each run of bytes between spaces.
template <typename F>
void for_each_token(std::string_view text, F&& f) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j > i) f(i, j);
    i = j;
  }
}

}  // namespace

std::vector<std::string> read_token_list(const std::string& path) {
  return parse_token_list(read_file_bytes(path), std::filesystem::path(path).extension() == ".json", path);
}

std::vector<std::string> parse_token_list(const std::string& bytes, bool json, const std::string& origin) {
  if (json) {
    try {
      return nlohmann::json::parse(bytes).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& e) {
      throw DataError("The vocabulary " + origin + " is not a JSON array of tokens: " + e.what());
    }
  }
  return lines_of(bytes);
}

void write_token_list(const std::vector<std::string>& tokens, const std::string& path) {
  std::string bytes;
  for (const auto& token : tokens) {
    if (token.find('\n') != std::string::npos) {
      throw DataError("The token \"" + token + "\" holds a line break and cannot be written to " + path + ".");
    }
    bytes += token;
    bytes += '\n';
  }
  write_file_atomically(path, bytes);
}

TokenListVocab::TokenListVocab(const std::string& path, const TokenRoles& roles,
                               std::shared_ptr<const SentencePieceVocab> pieces)
    : TokenListVocab(read_token_list(path), path, roles, std::move(pieces)) {}

TokenListVocab::TokenListVocab(std::vector<std::string> tokens, const std::string& origin, const TokenRoles& roles,
                               std::shared_ptr<const SentencePieceVocab> pieces)
    : tokens_(std::move(tokens)), pieces_(std::move(pieces)) {
  path_ = origin;
  if (tokens_.empty()) throw DataError("The vocabulary " + origin + " holds no tokens.");
  if (tokens_.size() > (size_t{1} << 30)) throw DataError("The vocabulary " + origin + " is too large.");
  auto add = [&](const std::string& token) { tokens_.push_back(token); };
  ids_.reserve(tokens_.size() + 3);
  for (size_t i = 0; i < tokens_.size(); ++i) {
    if (!ids_.emplace(tokens_[i], static_cast<int32_t>(i)).second) {
      throw DataError("The vocabulary " + origin + " holds the token \"" + tokens_[i] + "\" twice (line " +
                      std::to_string(i + 1) + ").");
    }
  }
  if (!ids_.count(roles.unk)) {
    ids_.emplace(roles.unk, static_cast<int32_t>(tokens_.size()));
    add(roles.unk);
  }
  for (const auto& pad : roles.pad) {
    if (ids_.count(pad)) {
      pad_id_ = ids_.at(pad);
      break;
    }
  }
  if (pad_id_ < 0) {
    const std::string pad = roles.pad.empty() ? "<pad>" : roles.pad.front();
    pad_id_ = static_cast<int32_t>(tokens_.size());
    ids_.emplace(pad, pad_id_);
    add(pad);
  }
  if (roles.append_bos && !ids_.count(roles.bos)) {
    ids_.emplace(roles.bos, static_cast<int32_t>(tokens_.size()));
    add(roles.bos);
  }
  unk_id_ = ids_.at(roles.unk);
  const auto bos = ids_.find(roles.bos), eos = ids_.find(roles.eos);
  if (bos == ids_.end() || eos == ids_.end()) {
    throw DataError("The vocabulary " + origin + " has no " + (bos == ids_.end() ? roles.bos : roles.eos) +
                    " token; a target vocabulary needs its start and end tokens.");
  }
  bos_id_ = bos->second;
  eos_id_ = eos->second;
  size_ = static_cast<int64_t>(tokens_.size());
  if (pieces_) {
    from_piece_.assign(static_cast<size_t>(pieces_->size()), unk_id_);
    to_piece_.assign(tokens_.size(), -1);
    for (int32_t p = 0; p < static_cast<int32_t>(pieces_->size()); ++p) {
      const auto it = ids_.find(pieces_->id_to_piece(p));
      if (it == ids_.end()) continue;
      from_piece_[static_cast<size_t>(p)] = it->second;
      to_piece_[static_cast<size_t>(it->second)] = p;
    }
  }
}

int32_t TokenListVocab::id_of(const std::string& token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? unk_id_ : it->second;
}

void TokenListVocab::encode_into(std::string_view text, std::vector<int32_t>& ids) const {
  if (pieces_) {
    pieces_->encode_into(text, ids);
    for (auto& id : ids) id = from_piece_[static_cast<size_t>(id)];
    return;
  }
  ids.clear();
  std::string token;
  for_each_token(text, [&](size_t b, size_t e) {
    token.assign(text.substr(b, e - b));
    ids.push_back(id_of(token));
  });
}

std::vector<std::string> TokenListVocab::encode_pieces(std::string_view text) const {
  if (pieces_) return pieces_->encode_pieces(text);
  std::vector<std::string> pieces;
  for_each_token(text, [&](size_t b, size_t e) { pieces.emplace_back(text.substr(b, e - b)); });
  return pieces;
}

std::vector<Vocab::IdSpan> TokenListVocab::encode_with_offsets(std::string_view text) const {
  if (pieces_) {
    auto spans = pieces_->encode_with_offsets(text);
    for (auto& s : spans) s.id = from_piece_[static_cast<size_t>(s.id)];
    return spans;
  }
  std::vector<IdSpan> out;
  std::string token;
  for_each_token(text, [&](size_t b, size_t e) {
    token.assign(text.substr(b, e - b));
    out.push_back({id_of(token), static_cast<uint32_t>(b), static_cast<uint32_t>(e)});
  });
  return out;
}

template <typename Id>
std::string TokenListVocab::join(const std::vector<Id>& ids) const {
  if (pieces_) {
    // Through the SentencePiece model's own ids, so that it detokenizes;
    // tokens it does not have (the list's own specials) are left out.
    std::vector<int32_t> kept;
    for (Id id : ids) {
      if (id == eos_id_) break;
      if (id == pad_id_ || id == bos_id_) continue;
      id_to_piece(static_cast<int32_t>(id));  // range check
      const int32_t p = to_piece_[static_cast<size_t>(id)];
      if (p >= 0) kept.push_back(p);
    }
    return pieces_->decode(kept);
  }
  std::string text;
  for (Id id : ids) {
    if (id == eos_id_) break;
    if (id == pad_id_ || id == bos_id_) continue;
    if (!text.empty()) text += ' ';
    text += id_to_piece(static_cast<int32_t>(id));
  }
  return text;
}

std::string TokenListVocab::decode(const std::vector<int32_t>& ids) const { return join(ids); }
std::string TokenListVocab::decode(const std::vector<int64_t>& ids) const { return join(ids); }

std::string TokenListVocab::id_to_piece(int32_t id) const {
  if (id < 0 || id >= size_) {
    throw DataError("Id " + std::to_string(id) + " is outside the vocabulary of " + path_ + " (" +
                    std::to_string(size_) + " tokens).");
  }
  return tokens_[static_cast<size_t>(id)];
}

int32_t TokenListVocab::piece_id(std::string_view piece) const {
  const auto it = ids_.find(std::string(piece));
  return it == ids_.end() ? -1 : it->second;
}

std::shared_ptr<const Vocab> load_vocab(const std::string& path) {
  const auto extension = std::filesystem::path(path).extension();
  if (extension == ".txt" || extension == ".json") return std::make_shared<const TokenListVocab>(path);
  return SentencePieceVocab::load(path);
}

}  // namespace nmt::vocab
