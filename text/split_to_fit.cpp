#include "text/split_to_fit.h"

#include <algorithm>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "text/clause_shape.h"
#include "text/sentence_splitter.h"

namespace nmt::text {
namespace {

enum class CutKind { kSentence = 0, kClause = 1, kOpener = 2, kConjunction = 3, kSpace = 4, kWord = 5 };

// A place to cut: the left piece ends at gap.begin, the right one starts at gap.end.
struct Cut {
  Span gap;
  CutKind kind;
};

UChar32 code_point_at(std::string_view text, size_t& i) {
  UChar32 c;
  int32_t k = static_cast<int32_t>(i);
  U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), k, static_cast<int32_t>(text.size()), c);
  i = static_cast<size_t>(k);
  return c;
}

bool is_space(UChar32 c) { return c >= 0 && u_isUWhiteSpace(c); }

// Marks after which a clause may end when whitespace follows them.
bool is_clause_mark(UChar32 c) { return c == ',' || c == ';' || c == ':' || c == 0x2014 || c == 0x2013; }

// Full-width marks of Chinese and Japanese, which no whitespace follows.
bool is_wide_clause_mark(UChar32 c) {
  return c == 0xFF0C || c == 0x3001 || c == 0xFF1B || c == 0xFF1A || c == 0x3002 || c == 0xFF01 || c == 0xFF1F;
}

// Whitespace runs and clause marks inside `s`.
void add_space_and_clause_cuts(std::string_view text, Span s, std::vector<Cut>& cuts) {
  size_t i = s.begin;
  UChar32 previous = -1;
  while (i < s.end) {
    const size_t at = i;
    const UChar32 c = code_point_at(text, i);
    if (is_space(c)) {
      size_t end = i;
      for (size_t j = i; j < s.end && is_space(code_point_at(text, j));) end = i = j;
      cuts.push_back({{at, end}, is_clause_mark(previous) ? CutKind::kClause : CutKind::kSpace});
      previous = ' ';
      continue;
    }
    if (is_wide_clause_mark(c) && i < s.end) cuts.push_back({{i, i}, CutKind::kClause});
    previous = c;
  }
}

// The word that starts at `at` (up to the next whitespace or `end`).
std::string_view word_at(std::string_view text, size_t at, size_t end) {
  size_t i = at, word_end = at;
  while (i < end && !is_space(code_point_at(text, i))) word_end = i;
  return text.substr(at, word_end - at);
}

// Space cuts before a word that opens sentences or is a conjunction rank above other spaces.
void rank_space_cuts(std::string_view text, Span s, const ClauseHints& hints, std::vector<Cut>& cuts) {
  for (Cut& c : cuts) {
    if (c.kind != CutKind::kSpace) continue;
    const std::string_view word = word_at(text, c.gap.end, s.end);
    if (word.empty()) continue;
    if (hints.opens_sentence && hints.opens_sentence(word)) {
      c.kind = CutKind::kOpener;
    } else if (std::find(hints.conjunctions.begin(), hints.conjunctions.end(), word) != hints.conjunctions.end()) {
      c.kind = CutKind::kConjunction;
    }
  }
}

void add_sentence_cuts(std::string_view text, Span s, const SentenceSplitter& splitter, std::vector<Cut>& cuts) {
  const auto sentences = splitter.split(s.of(text));
  for (size_t k = 1; k < sentences.size(); ++k) {
    cuts.push_back({{s.begin + sentences[k - 1].end, s.begin + sentences[k].begin}, CutKind::kSentence});
  }
}

// The best cut strictly inside `piece`: of the best kind with one in the
// middle three fifths, nearest the middle; failing that, of the best kind
// with any. Null when there is none.
const Cut* choose(const std::vector<Cut>& cuts, Span piece) {
  const size_t middle = piece.begin + piece.size() / 2, slack = piece.size() * 3 / 10;
  const Cut* best[2] = {nullptr, nullptr};  // [0]: within the middle, [1]: anywhere
  auto better = [&](const Cut* a, const Cut& b) {
    if (!a) return true;
    if (b.kind != a->kind) return b.kind < a->kind;
    const auto distance = [&](const Cut& c) {
      return c.gap.begin > middle ? c.gap.begin - middle : middle - c.gap.begin;
    };
    return distance(b) < distance(*a);
  };
  auto it = std::lower_bound(cuts.begin(), cuts.end(), piece.begin,
                             [](const Cut& c, size_t at) { return c.gap.begin <= at; });
  for (; it != cuts.end() && it->gap.end < piece.end; ++it) {
    const Cut& c = *it;
    const size_t d = c.gap.begin > middle ? c.gap.begin - middle : middle - c.gap.begin;
    if (d <= slack && better(best[0], c)) best[0] = &c;
    if (better(best[1], c)) best[1] = &c;
  }
  return best[0] ? best[0] : best[1];
}

std::vector<Cut> word_cuts(std::string_view text, Span piece) {
  std::vector<Cut> cuts;
  for (size_t b : word_boundaries(text, piece)) cuts.push_back({{b, b}, CutKind::kWord});
  return cuts;
}

}  // namespace

std::vector<Span> split_to_fit(std::string_view text, Span sentence, const FitsModel& fits,
                               const SentenceSplitter* sentences, const ClauseHints* hints) {
  if (fits(sentence.of(text))) return {sentence};
  std::vector<Cut> cuts;
  if (sentences) add_sentence_cuts(text, sentence, *sentences, cuts);
  add_space_and_clause_cuts(text, sentence, cuts);
  if (hints) rank_space_cuts(text, sentence, *hints, cuts);
  std::stable_sort(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) { return a.gap.begin < b.gap.begin; });
  std::vector<Span> pieces, todo{sentence};  // todo: a stack, the next piece on top
  bool first = true;
  while (!todo.empty()) {
    const Span piece = todo.back();
    todo.pop_back();
    if (!first && fits(piece.of(text))) {
      pieces.push_back(piece);
      continue;
    }
    first = false;
    const Cut* cut = choose(cuts, piece);
    std::vector<Cut> words;
    if (!cut) {
      words = word_cuts(text, piece);
      cut = choose(words, piece);
    }
    if (!cut) {  // one long word: the caller cuts it by tokens
      pieces.push_back(piece);
      continue;
    }
    const Span left = trim_space(text, {piece.begin, cut->gap.begin});
    const Span right = trim_space(text, {cut->gap.end, piece.end});
    if (!right.empty()) todo.push_back(right);
    if (!left.empty()) todo.push_back(left);
  }
  return pieces;
}

}  // namespace nmt::text
