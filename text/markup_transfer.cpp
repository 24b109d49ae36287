#include "text/markup_transfer.h"

#include <algorithm>
#include <limits>

#include "text/html_document.h"
#include "text/join_pieces.h"

namespace nmt::text {
namespace {

struct Stretch {
  size_t lo = std::numeric_limits<size_t>::max(), hi = 0;  // words [lo, hi)
  bool empty() const { return lo >= hi; }
};

// Innermost element around `pos`: the last one in document order that covers it.
int innermost(const std::vector<MarkupElement>& elements, size_t pos) {
  int found = -1;
  for (size_t e = 0; e < elements.size(); ++e) {
    if (elements[e].begin <= pos && pos < elements[e].end) found = static_cast<int>(e);
  }
  return found;
}

bool is_ancestor(const std::vector<MarkupElement>& elements, int a, size_t e) {
  for (int p = elements[e].parent; p >= 0; p = elements[static_cast<size_t>(p)].parent) {
    if (p == a) return true;
  }
  return false;
}

// Element e, holding source words none of the target's align into, takes
// the word aligned nearest to its source text among those no other element
// but its ancestors holds or took (`claimed`: per word, the element that
// took it, -1 for none), kept pieces left alone; its ancestors' stretches
// grow to take it in.
void claim_nearest_word(const std::vector<AlignedWord>& words, const std::vector<MarkupElement>& elements, size_t e,
                        std::vector<Stretch>& s, std::vector<int>& claimed) {
  const MarkupElement& m = elements[e];
  if (!m.holds_words || m.begin >= m.end) return;
  const auto other = [&](int holder) { return holder >= 0 && !is_ancestor(elements, holder, e); };
  size_t best = words.size(), best_distance = std::numeric_limits<size_t>::max();
  for (size_t w = 0; w < words.size(); ++w) {
    if (words[w].verbatim || other(innermost(elements, words[w].source)) || other(claimed[w])) continue;
    const size_t at = words[w].source;
    const size_t distance = at < m.begin ? m.begin - at : at >= m.end ? at - m.end + 1 : 0;
    if (distance < best_distance) best = w, best_distance = distance;
  }
  if (best == words.size()) return;
  claimed[best] = static_cast<int>(e);
  for (int x = static_cast<int>(e); x >= 0; x = elements[static_cast<size_t>(x)].parent) {
    s[static_cast<size_t>(x)].lo = std::min(s[static_cast<size_t>(x)].lo, best);
    s[static_cast<size_t>(x)].hi = std::max(s[static_cast<size_t>(x)].hi, best + 1);
  }
}

std::vector<Stretch> stretches_of(const std::vector<AlignedWord>& words, const std::vector<MarkupElement>& elements) {
  std::vector<Stretch> s(elements.size());
  for (size_t w = 0; w < words.size(); ++w) {
    const int e = innermost(elements, words[w].source);
    if (e < 0) continue;
    s[e].lo = std::min(s[e].lo, w);
    s[e].hi = std::max(s[e].hi, w + 1);
  }
  for (size_t e = elements.size(); e-- > 0;) {  // children after parents: fold each into its parent
    const int p = elements[e].parent;
    if (p < 0 || s[e].empty()) continue;
    s[p].lo = std::min(s[p].lo, s[e].lo);
    s[p].hi = std::max(s[p].hi, s[e].hi);
  }
  std::vector<int> claimed(words.size(), -1);
  for (size_t e = 0; e < elements.size(); ++e) {
    if (s[e].empty()) claim_nearest_word(words, elements, e, s, claimed);
  }
  for (size_t e = 0; e < elements.size(); ++e) {
    if (!s[e].empty()) continue;
    size_t before = 0;  // words aligned before the element
    for (const auto& w : words) before += w.source < elements[e].begin ? 1 : 0;
    s[e].lo = s[e].hi = before;
  }
  return s;
}

// Keeps the tree: a child inside its parent's stretch, after its previous sibling's.
void nest(const std::vector<MarkupElement>& elements, size_t n_words, std::vector<Stretch>& s) {
  std::vector<size_t> floor(elements.size() + 1, 0);  // per parent (last: the top level), end of the last child
  for (size_t e = 0; e < elements.size(); ++e) {
    const int p = elements[e].parent;
    const size_t plo = p < 0 ? 0 : s[p].lo, phi = p < 0 ? n_words : s[p].hi;
    size_t& f = floor[p < 0 ? elements.size() : static_cast<size_t>(p)];
    const size_t lo = std::max({s[e].lo, plo, f});
    size_t hi = std::min(std::max(s[e].hi, lo), phi);
    s[e].lo = std::min(lo, hi);
    s[e].hi = hi;
    f = hi;
  }
}

class Writer {
 public:
  Writer(const std::vector<AlignedWord>& words, const std::vector<MarkupElement>& elements,
         const std::vector<Stretch>& s)
      : words_(words), elements_(elements), s_(s), children_(elements.size() + 1), separated_(words.size(), false) {
    for (size_t e = 0; e < elements.size(); ++e) {
      const int p = elements[e].parent;
      children_[p < 0 ? elements.size() : static_cast<size_t>(p)].push_back(e);
    }
  }

  std::string write() {
    element_contents(elements_.size(), 0, words_.size());
    return std::move(out_);
  }

 private:
  void separate(size_t w) {
    if (w == 0 || w >= words_.size() || separated_[w]) return;
    separated_[w] = true;
    if (!words_[w - 1].text.empty() && !words_[w].text.empty()) out_ += joint(words_[w - 1].text, "", words_[w].text);
  }
  void put_words(size_t from, size_t to) {
    for (size_t w = from; w < to; ++w) {
      separate(w);
      out_ += words_[w].verbatim ? words_[w].text : escape_html_text(words_[w].text);
    }
  }
  // The words [lo, hi) with the children of `parent` (elements_.size(): the top level).
  void element_contents(size_t parent, size_t lo, size_t hi) {
    size_t at = lo;
    for (size_t c : children_[parent]) {
      put_words(at, s_[c].lo);
      if (!s_[c].empty()) separate(s_[c].lo);  // the space before an element stays outside it
      out_ += elements_[c].open;
      element_contents(c, s_[c].lo, s_[c].hi);
      out_ += elements_[c].close;
      at = s_[c].hi;
    }
    put_words(at, hi);
  }

  const std::vector<AlignedWord>& words_;
  const std::vector<MarkupElement>& elements_;
  const std::vector<Stretch>& s_;
  std::vector<std::vector<size_t>> children_;
  std::vector<bool> separated_;
  std::string out_;
};

}  // namespace

std::string transfer_markup(const std::vector<AlignedWord>& words, const std::vector<MarkupElement>& elements) {
  auto s = stretches_of(words, elements);
  nest(elements, words.size(), s);
  return Writer(words, elements, s).write();
}

}  // namespace nmt::text
