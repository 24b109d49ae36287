#include "decode/term_constraints.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <utility>

namespace nmt::decode {
namespace {

// How many of `ids`' first tokens end a row that ended with its first `p`
// and then produced `token`: string matching's next state.
int32_t next_progress(const std::vector<int64_t>& ids, int32_t p, int64_t token) {
  if (ids[static_cast<size_t>(p)] == token) return p + 1;
  for (int32_t k = p; k >= 1; --k) {
    // ids[0, k) == the last k of ids[0, p) + token
    if (ids[static_cast<size_t>(k - 1)] != token) continue;
    if (std::equal(ids.begin(), ids.begin() + (k - 1), ids.begin() + (p - k + 1))) return k;
  }
  return 0;
}

// `text` with its first letter as a title-case letter, or "" where it does not start with a lower-case letter.
std::string capitalized(const std::string& text) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  int32_t i = 0;
  UChar32 c = 0;
  U8_NEXT(s, i, static_cast<int32_t>(text.size()), c);
  if (c < 0 || !u_islower(c)) return "";
  const UChar32 upper = u_totitle(c);
  uint8_t out[U8_MAX_LENGTH];
  int32_t n = 0;
  UBool error = false;
  U8_APPEND(out, n, U8_MAX_LENGTH, upper, error);
  if (error) return "";
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n)) + text.substr(static_cast<size_t>(i));
}

}  // namespace

std::string describe(const UnmetTerm& term) {
  return "the glossary term \"" + term.source + "\" -> \"" + term.target + "\" is not in the translation (" +
         (term.writable ? "no translation within the length limit contains it"
                        : "the model's target vocabulary cannot write it") +
         ")";
}

std::shared_ptr<const std::vector<uint8_t>> word_continuations(const vocab::Vocab& target) {
  auto out = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(target.size()), 0);
  for (int32_t id = 0; id < target.size(); ++id) {
    const std::string piece = target.id_to_piece(id);
    if (piece.empty() || piece.rfind("\xE2\x96\x81", 0) == 0) continue;  // "▁": starts a word
    const auto* s = reinterpret_cast<const uint8_t*>(piece.data());
    int32_t i = 0;
    UChar32 c = 0;
    U8_NEXT(s, i, static_cast<int32_t>(piece.size()), c);
    (*out)[static_cast<size_t>(id)] = c >= 0 && (u_isalnum(c) || (U_GET_GC_MASK(c) & U_GC_M_MASK)) ? 1 : 0;
  }
  for (int32_t special : {target.bos_id(), target.eos_id(), target.pad_id(), target.unk_id()}) {
    if (special >= 0 && special < target.size()) (*out)[static_cast<size_t>(special)] = 0;
  }
  return out;
}

TermConstraint term_constraint(const std::string& source, const std::string& target_term, const vocab::Vocab& target,
                               std::shared_ptr<const std::vector<uint8_t>> continues_word) {
  TermConstraint c{source, target_term, {}, std::move(continues_word)};
  const auto add = [&](const std::string& text, bool initial_only) {
    if (text.empty()) return;
    const auto ids32 = target.encode(text);
    if (ids32.empty() || std::find(ids32.begin(), ids32.end(), target.unk_id()) != ids32.end()) return;
    std::vector<int64_t> ids(ids32.begin(), ids32.end());
    for (const auto& f : c.forms) {
      if (f.ids == ids) return;
    }
    c.forms.push_back({std::move(ids), initial_only});
  };
  add(target_term, false);
  add(capitalized(target_term), true);
  return c;
}

ConstraintState::ConstraintState(const TermConstraints& constraints)
    : met_(constraints.size(), 0), partial_(constraints.size(), 0), pending_(constraints.size(), 0) {
  size_t forms = 0;
  for (size_t c = 0; c < constraints.size(); ++c) {
    forms += constraints[c].forms.size();
    if (constraints[c].forms.empty()) met_[c] = kUnsatisfiable;  // nothing to wait for
  }
  progress_.assign(forms, 0);
  aligned_.assign(forms, 0);
}

ConstraintState ConstraintState::advanced(const TermConstraints& constraints, int64_t token, bool at_start,
                                          const std::vector<uint8_t>* may_start) const {
  ConstraintState next = *this;
  size_t offset = 0;
  for (size_t c = 0; c < constraints.size(); ++c) {
    const auto& forms = constraints[c].forms;
    const size_t first = offset;
    offset += forms.size();
    if (met_[c] != 0) continue;
    const auto clear = [&] {
      std::fill(next.progress_.begin() + static_cast<std::ptrdiff_t>(first),
                next.progress_.begin() + static_cast<std::ptrdiff_t>(offset), 0);
      std::fill(next.aligned_.begin() + static_cast<std::ptrdiff_t>(first),
                next.aligned_.begin() + static_cast<std::ptrdiff_t>(offset), 0);
    };
    if (pending_[c]) {
      next.pending_[c] = 0;
      const auto& glued = constraints[c].continues_word;
      const bool continues = glued && token >= 0 && static_cast<size_t>(token) < glued->size() && (*glued)[static_cast<size_t>(token)];
      clear();
      if (!continues) {  // the term ends a word here: met
        next.met_[c] = partial_[c];
        next.partial_[c] = 0;
        continue;
      }
      // Glued to more letters ("Gebäude" + "ht"): not the term; matching starts over with this token.
    }
    int32_t best = 0;
    for (size_t f = 0; f < forms.size(); ++f) {
      int32_t& p = next.progress_[first + f];
      uint8_t& aligned = next.aligned_[first + f];
      if (p == 0 && forms[f].initial_only && !at_start) continue;
      const int32_t before = p;
      const int32_t moved = next_progress(forms[f].ids, p, token);
      // A capitalized form counts only from the translation's start.
      p = forms[f].initial_only && moved != p + 1 ? 0 : moved;
      if (before == 0 && p > 0) aligned = !may_start || (*may_start)[c];  // a run starts: where the attention is?
      if (p == 0) aligned = 0;
      if (p == static_cast<int32_t>(forms[f].ids.size())) {  // met once the next token starts a word
        best = p;
        next.pending_[c] = 1;
        clear();
        break;
      }
      if (aligned) best = std::max(best, p);
    }
    next.partial_[c] = best;
  }
  return next;
}

int64_t ConstraintState::bank() const {
  int64_t total = 0;
  for (size_t c = 0; c < met_.size(); ++c) total += std::max(met_[c], 0) + partial_[c];
  return total;
}

bool ConstraintState::all_met() const {
  for (size_t c = 0; c < met_.size(); ++c) {
    if (met_[c] == 0 && !pending_[c]) return false;
  }
  return true;
}

std::vector<int32_t> ConstraintState::unmet(const TermConstraints& constraints) const {
  std::vector<int32_t> out;
  for (size_t c = 0; c < constraints.size() && c < met_.size(); ++c) {
    if (met_[c] <= 0 && !pending_[c]) out.push_back(static_cast<int32_t>(c));
  }
  return out;
}

std::vector<int64_t> ConstraintState::wanted(const TermConstraints& constraints, bool at_start,
                                             const std::vector<uint8_t>* may_start) const {
  std::vector<int64_t> out;
  size_t offset = 0;
  for (size_t c = 0; c < constraints.size(); ++c) {
    const auto& forms = constraints[c].forms;
    for (size_t f = 0; f < forms.size(); ++f) {
      if (met_[c] != 0 || pending_[c]) continue;
      const auto& ids = forms[f].ids;
      const int32_t p = progress_[offset + f];
      const bool start = (!may_start || (*may_start)[c]) && (!forms[f].initial_only || at_start);
      if (p > 0 && aligned_[offset + f]) out.push_back(ids[static_cast<size_t>(p)]);  // continuing
      if (start) out.push_back(ids.front());
    }
    offset += forms.size();
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint8_t> terms_to_start(const TermConstraints& constraints, const std::vector<float>& step) {
  std::vector<uint8_t> out(constraints.size(), 1);
  if (step.empty()) return out;
  const auto strongest = static_cast<int64_t>(std::max_element(step.begin(), step.end()) - step.begin());
  for (size_t c = 0; c < constraints.size(); ++c) {
    const auto& t = constraints[c];
    if (t.source_begin >= t.source_end) continue;
    out[c] = strongest >= t.source_begin - 1 && strongest <= t.source_end ? 1 : 0;
  }
  return out;
}

std::vector<size_t> allocate_beam(const std::vector<ConstrainedCandidate>& candidates, int64_t beam) {
  std::set<std::pair<int64_t, int64_t>> seen;
  std::map<int64_t, std::vector<size_t>, std::greater<>> banks;  // highest bank first
  for (size_t k = 0; k < candidates.size(); ++k) {
    const auto& c = candidates[k];
    if (!std::isfinite(c.sum) || !seen.insert({c.parent, c.token}).second) continue;
    banks[c.state.bank()].push_back(k);
  }
  for (auto& [bank, members] : banks) {
    std::stable_sort(members.begin(), members.end(),
                     [&](size_t a, size_t b) { return candidates[a].sum > candidates[b].sum; });
  }
  std::vector<size_t> out;
  for (size_t round = 0; static_cast<int64_t>(out.size()) < beam; ++round) {
    bool any = false;
    for (const auto& [bank, members] : banks) {
      if (round >= members.size()) continue;
      any = true;
      out.push_back(members[round]);
      if (static_cast<int64_t>(out.size()) == beam) break;
    }
    if (!any) break;
  }
  return out;
}

}  // namespace nmt::decode
