#include "text/masked_text.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace nmt::text {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool closes_sentence(char c) { return std::strchr(".,;:!?)]", c) != nullptr && c != '\0'; }

// The whitespace-delimited words of `text`.
std::vector<Span> words_of(const std::string& text) {
  std::vector<Span> words;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && is_space(text[i])) ++i;
    const size_t b = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > b) words.push_back({b, i});
  }
  return words;
}

struct Located {
  Span target;    // in the translation
  size_t source;  // in the masked text
};

std::vector<Located> locate(const std::string& translation, const std::vector<AlignedWord>& words) {
  std::vector<Located> out;
  size_t cursor = 0;
  for (const auto& w : words) {
    if (w.text.empty()) continue;
    const size_t at = translation.find(w.text, cursor);
    if (at == std::string::npos) continue;
    out.push_back({{at, at + w.text.size()}, w.source});
    cursor = at + w.text.size();
  }
  return out;
}

// Where an atom goes: a byte offset of the translation.
class AtomPlacer {
 public:
  AtomPlacer(const std::string& translation, const std::vector<AlignedWord>& words, const MaskedText& masked)
      : translation_(translation), masked_(masked), located_(locate(translation, words)), source_(words_of(masked.text)) {}

  size_t offset(const MaskedAtom& atom) const {
    const size_t pos = atom.position;
    if (atom.sentence) return by_count(pos);  // after the words of the sentences before it
    std::optional<size_t> inside, left, right;
    for (size_t w = 0; w < source_.size(); ++w) {
      if (source_[w].begin < pos && pos < source_[w].end) inside = w;
      if (source_[w].end <= pos) left = w;
      if (source_[w].begin >= pos && !right) right = w;
    }
    if (inside) {
      if (auto o = after(*inside, pos)) return *o;
    }
    const bool glued_right = right && !atom.space_after && source_[*right].begin == pos;
    const bool glued_left = left && !atom.space_before && source_[*left].end == pos;
    const bool right_first = glued_right || (!glued_left && right);
    for (int pass = 0; pass < 2; ++pass) {
      if ((pass == 0) == right_first) {
        if (right) {
          if (auto o = before(*right)) return *o;
        }
      } else if (left) {
        if (auto o = after(*left, source_[*left].end)) return *o;
      }
    }
    return by_count(pos);
  }

 private:
  bool aligned_to(const Located& l, size_t w) const { return source_[w].begin <= l.source && l.source < source_[w].end; }

  std::optional<size_t> before(size_t w) const {
    for (const auto& l : located_) {
      if (aligned_to(l, w)) return l.target.begin;
    }
    return std::nullopt;
  }

  // After the last target word aligned to source word `w`; before its
  // closing punctuation where the source word has the same after `pos` ("Hello {name}!").
  std::optional<size_t> after(size_t w, size_t pos) const {
    const Located* last = nullptr;
    for (const auto& l : located_) {
      if (aligned_to(l, w)) last = &l;
    }
    if (!last) return std::nullopt;
    const std::string tail = masked_.text.substr(pos, source_[w].end - pos);
    const bool punctuation = std::all_of(tail.begin(), tail.end(), closes_sentence);
    const std::string_view target = Span{last->target}.of(translation_);
    if (!tail.empty() && punctuation && target.size() > tail.size() &&
        target.substr(target.size() - tail.size()) == tail) {
      return last->target.end - tail.size();
    }
    return last->target.end;
  }

  // After the words aligned before `pos`; with none located: the start or the end.
  size_t by_count(size_t pos) const {
    if (located_.empty()) return pos == 0 ? 0 : translation_.size();
    size_t n = 0;
    for (const auto& l : located_) n += l.source < pos ? 1 : 0;
    return n == 0 ? located_.front().target.begin : located_[n - 1].target.end;
  }

  const std::string& translation_;
  const MaskedText& masked_;
  std::vector<Located> located_;
  std::vector<Span> source_;
};

}  // namespace

size_t MaskedText::masked_position(size_t original) const {
  for (const auto& s : stretches) {
    if (original < s.original) return s.masked;  // taken out: where the text was
    if (original < s.original + s.size) return s.masked + (original - s.original);
  }
  return text.size();
}

size_t MaskedText::original_position(size_t masked) const {
  if (atoms.empty()) return masked;
  size_t out = source.size();
  for (auto s = stretches.rbegin(); s != stretches.rend(); ++s) {
    if (masked >= s->masked) return s->original + std::min(masked - s->masked, s->size);
    out = s->original;
  }
  return std::min(out, masked);
}

std::string MaskedText::with_literals() const {
  std::string out;
  size_t at = 0;
  for (const auto& a : atoms) {
    out.append(source, at, a.original.begin - at);
    out += a.literal;
    at = a.original.end;
  }
  out.append(source, at, std::string::npos);
  return out;
}

MaskedText mask_spans(const std::string& text, const std::vector<Span>& spans,
                      const std::vector<std::optional<std::string>>& replacements) {
  MaskedText m;
  m.source = text;
  size_t at = 0;
  auto copy = [&](size_t from, size_t to) {
    if (to > from) m.stretches.push_back({from, m.text.size(), to - from});
    m.text.append(text, from, to - from);
  };
  for (size_t k = 0; k < spans.size(); ++k) {
    const Span& s = spans[k];
    copy(at, s.begin);
    MaskedAtom atom;
    const bool replaced = k < replacements.size() && replacements[k];
    atom.literal = replaced ? *replacements[k] : text.substr(s.begin, s.size());
    atom.sentence = replaced;
    atom.original = s;
    atom.space_before = s.begin == 0 || is_space(text[s.begin - 1]);
    atom.space_after = s.end == text.size() || is_space(text[s.end]);
    at = s.end;
    const bool open_before = !m.text.empty() && is_space(m.text.back());
    const bool closed_after = at == text.size() || closes_sentence(text[at]);
    if (open_before && closed_after) {  // "open {x}." -> "open."
      while (!m.text.empty() && is_space(m.text.back())) m.text.pop_back();
      for (auto& earlier : m.atoms) earlier.position = std::min(earlier.position, m.text.size());
      if (!m.stretches.empty()) {
        auto& last = m.stretches.back();
        last.size = std::min(last.size, m.text.size() - last.masked);
      }
    }
    if ((open_before || m.text.empty()) && at < text.size() && is_space(text[at])) {  // "a {x} b" -> "a b"
      while (at < text.size() && is_space(text[at])) ++at;
    }
    atom.position = m.text.size();
    m.atoms.push_back(std::move(atom));
  }
  copy(at, text.size());
  return m;
}

MaskedText mask_remembered(const std::string& text, std::vector<std::pair<Span, std::string>> remembered,
                           const std::vector<Span>& placeholders) {
  if (remembered.empty()) return mask_spans(text, placeholders);
  std::vector<std::pair<Span, std::optional<std::string>>> all;
  for (auto& [span, translation] : remembered) all.emplace_back(span, std::move(translation));
  for (const Span& p : placeholders) {
    const bool inside = std::any_of(remembered.begin(), remembered.end(),
                                    [&](const auto& r) { return p.begin < r.first.end && r.first.begin < p.end; });
    if (!inside) all.emplace_back(p, std::nullopt);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first.begin < y.first.begin; });
  std::vector<Span> spans;
  std::vector<std::optional<std::string>> replacements;
  for (auto& [span, replacement] : all) {
    spans.push_back(span);
    replacements.push_back(std::move(replacement));
  }
  return mask_spans(text, spans, replacements);
}

std::string place_atoms(const std::string& translation, const std::vector<AlignedWord>& words,
                        const MaskedText& masked) {
  const AtomPlacer placer(translation, words, masked);
  std::vector<std::pair<size_t, size_t>> inserts;  // offset, atom
  for (size_t a = 0; a < masked.atoms.size(); ++a) inserts.emplace_back(placer.offset(masked.atoms[a]), a);
  std::stable_sort(inserts.begin(), inserts.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out;
  size_t cursor = 0;
  for (const auto& [offset, a] : inserts) {
    const MaskedAtom& atom = masked.atoms[a];
    out.append(translation, cursor, offset - cursor);
    cursor = offset;
    if (!out.empty() && !is_space(out.back()) && atom.space_before) out += ' ';
    out += atom.literal;
    if (offset < translation.size() && !is_space(translation[offset]) && atom.space_after) out += ' ';
  }
  out.append(translation, cursor, std::string::npos);
  return out;
}

std::vector<AlignedWord> place_atom_words(std::vector<AlignedWord> words, const MaskedText& masked, size_t offset) {
  std::string joined;
  std::vector<size_t> starts;  // per word, its first byte in `joined`
  for (auto& w : words) {
    w.source -= std::min(w.source, offset);
    if (!joined.empty()) joined += ' ';
    starts.push_back(joined.size());
    joined += w.text;
  }
  const AtomPlacer placer(joined, words, masked);
  std::vector<std::pair<size_t, size_t>> inserts;  // before word, atom
  for (size_t a = 0; a < masked.atoms.size(); ++a) {
    const size_t at = placer.offset(masked.atoms[a]);
    inserts.emplace_back(static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), at) - starts.begin()), a);
  }
  std::stable_sort(inserts.begin(), inserts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<AlignedWord> out;
  size_t next = 0;
  for (const auto& [before, a] : inserts) {
    for (; next < before; ++next) out.push_back(std::move(words[next]));
    out.push_back({masked.atoms[a].literal, masked.atoms[a].position, masked.atoms[a].verbatim});
  }
  for (; next < words.size(); ++next) out.push_back(std::move(words[next]));
  for (auto& w : out) w.source += offset;
  return out;
}

}  // namespace nmt::text
