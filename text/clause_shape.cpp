#include "text/clause_shape.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace nmt::text {
namespace {

// The first word of `text` (up to a space) and the rest after the spaces.
std::pair<std::string_view, std::string_view> first_word(std::string_view text) {
  const size_t end = std::min(text.find(' '), text.size());
  size_t rest = end;
  while (rest < text.size() && text[rest] == ' ') ++rest;
  return {text.substr(0, end), text.substr(rest)};
}

// `text` with its first character's case changed (ICU's simple case mapping).
std::string with_first_case(std::string_view text, bool upper) {
  if (text.empty()) return std::string(text);
  int32_t i = 0;
  UChar32 c;
  U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), i, static_cast<int32_t>(text.size()), c);
  if (c < 0) return std::string(text);
  const UChar32 mapped = upper ? u_toupper(c) : u_tolower(c);
  char buffer[U8_MAX_LENGTH];
  int32_t n = 0;
  UBool error = false;
  U8_APPEND(reinterpret_cast<uint8_t*>(buffer), n, U8_MAX_LENGTH, mapped, error);
  if (error) return std::string(text);
  return std::string(buffer, static_cast<size_t>(n)) + std::string(text.substr(static_cast<size_t>(i)));
}

bool is_clause_mark(char c) { return c == ',' || c == ';' || c == ':'; }
bool is_final_mark(char c) { return c == '.' || c == '!' || c == '?'; }

}  // namespace

std::vector<std::string> coordinating_conjunctions(const std::string& language) {
  // and, but, or
  static const std::vector<std::pair<std::string, std::vector<std::string>>> lists = {
      {"cs", {"a", "ale", "nebo"}},  {"da", {"og", "men", "eller"}}, {"de", {"und", "aber", "oder"}},
      {"en", {"and", "but", "or"}},  {"es", {"y", "pero", "o"}},     {"fr", {"et", "mais", "ou"}},
      {"it", {"e", "ma", "o"}},      {"nl", {"en", "maar", "of"}},   {"pl", {"i", "ale", "lub"}},
      {"pt", {"e", "mas", "ou"}},    {"sv", {"och", "men", "eller"}},
      {"ru", {"\xD0\xB8", "\xD0\xBD\xD0\xBE", "\xD0\xB8\xD0\xBB\xD0\xB8"}},
  };
  const std::string base = language.substr(0, language.find_first_of("-_"));
  for (const auto& [code, words] : lists) {
    if (code == base) return words;
  }
  return {};
}

ShapedPiece shape_piece(std::string_view piece, bool starts, bool ends, const SentenceShape& source,
                        const SentenceShape& target) {
  ShapedPiece out;
  std::string_view body = piece;
  if (!starts) {
    const auto theirs = coordinating_conjunctions(source.language);
    const auto ours = coordinating_conjunctions(target.language);
    const auto [word, rest] = first_word(body);
    for (size_t k = 0; k < theirs.size() && k < ours.size() && !rest.empty(); ++k) {
      if (word == theirs[k]) {
        out.conjunction = static_cast<int>(k);
        body = rest;
        break;
      }
    }
    const std::string raised = with_first_case(body, true);
    const auto [raised_word, unused] = first_word(raised);
    if (raised != body && source.opens_sentence && source.opens_sentence(raised_word)) {
      out.text = raised;
      out.capitalized = true;
    }
  }
  if (!out.capitalized) out.text = std::string(body);
  if (!ends && !source.final_mark.empty() && !out.text.empty() && !is_final_mark(out.text.back())) {
    if (is_clause_mark(out.text.back())) {
      out.end_mark = out.text.substr(out.text.size() - 1);
      out.text.pop_back();
      while (!out.text.empty() && out.text.back() == ' ') out.text.pop_back();
    }
    out.text += source.final_mark;
    out.final_added = true;
  }
  return out;
}

std::string unshape_translation(std::string t, const ShapedPiece& piece, const SentenceShape& target) {
  if (piece.final_added) {
    while (!t.empty() && t.back() == ' ') t.pop_back();
    if (!t.empty() && is_final_mark(t.back())) t.pop_back();
    t += piece.end_mark;
  }
  if (piece.capitalized && target.opens_sentence) {
    const auto [word, rest] = first_word(t);
    if (!word.empty() && target.opens_sentence(word)) t = with_first_case(t, false);
  }
  if (piece.conjunction >= 0) {
    const auto ours = coordinating_conjunctions(target.language);
    if (static_cast<size_t>(piece.conjunction) < ours.size()) t = ours[static_cast<size_t>(piece.conjunction)] + " " + t;
  }
  return t;
}

}  // namespace nmt::text
