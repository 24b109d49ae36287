// Lexically constrained decoding: glossary terms a sentence's translation
// must contain, and where each row of a beam search stands with them.
//
// A constraint is met when any of its forms (target ids: the term as written,
// and capitalized where it opens the translation) appears in the row's
// tokens in one run, as whole words (the token after it starts a word). Each row tracks, per form, how many of its tokens end
// the row (a run broken off starts over, as string matching does), and its
// bank: the constraint tokens it has met or is inside. The search gives each
// bank room in the beam by dynamic beam allocation (Post and Vilar 2018):
// candidates are the best extensions, every row's token that starts or
// continues a constraint, and every row's best token; they are taken in turn
// from each bank, the most advanced bank first. A row may end only when all
// of its constraints are met; a sentence whose search runs out without such
// a row ends with its best row anyway and names the terms it missed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vocab/vocab.h"

namespace nmt::decode {

struct TermConstraint {
  std::string source, target;  // as the glossary writes them: what a report names
  struct Form {
    std::vector<int64_t> ids;
    bool initial_only = false;  // only as the translation's first tokens (a capitalized form)
  };
  std::vector<Form> forms;  // empty: the target vocabulary cannot write the term
  // Per target id, 1 where the piece continues the word before it (no word
  // mark, a letter or digit first): a form followed by one is not the term
  // ("Gebäude" + "ht"). Null: every token may follow.
  std::shared_ptr<const std::vector<uint8_t>> continues_word;
  // The source term's tokens, as positions of the piece's ids (the
  // translator shifts them to the model's input, sos counted, before the
  // search): a row starts the term only where its cross-attention is there
  // (or has passed it). Empty: anywhere.
  int64_t source_begin = 0, source_end = 0;
};
using TermConstraints = std::vector<TermConstraint>;

// A term a translation lacks, for reports.
struct UnmetTerm {
  std::string source, target;
  bool writable = true;  // false: the target vocabulary cannot write it
  bool operator==(const UnmetTerm& o) const { return source == o.source && target == o.target; }
};
// "the glossary term "pull request" -> "Pull-Request" (...)": why it is missing.
std::string describe(const UnmetTerm& term);

// A sentence with terms to meet is searched with a beam of at least this
// many rows (room for the banks of dynamic beam allocation).
constexpr int64_t kMinConstrainedBeam = 4;

// Per id of `target`: whether its piece continues the word before it (TermConstraint::continues_word).
std::shared_ptr<const std::vector<uint8_t>> word_continuations(const vocab::Vocab& target);

// The constraint of a glossary term written with `target`'s vocabulary: the
// term as written, and, where it starts with a lower-case letter, with a
// capital where it opens the translation. Forms holding the unknown piece
// are left out (none left: unsatisfiable). `continues_word`: word_continuations(target).
TermConstraint term_constraint(const std::string& source, const std::string& target_term, const vocab::Vocab& target,
                               std::shared_ptr<const std::vector<uint8_t>> continues_word);

// Where one row stands with its sentence's constraints.
class ConstraintState {
 public:
  ConstraintState() = default;
  explicit ConstraintState(const TermConstraints& constraints);

  // The state after the row produces `token`; `at_start`: as its first
  // generated token; `may_start` (per constraint, null: all): where a term's
  // run may be started by force (its source is attended to).
  ConstraintState advanced(const TermConstraints& constraints, int64_t token, bool at_start,
                           const std::vector<uint8_t>* may_start = nullptr) const;
  // Constraint tokens met or being met: the row's bank.
  int64_t bank() const;
  // Every satisfiable constraint met: the row may end.
  bool all_met() const;
  // Indices of the constraints not met (unsatisfiable ones included).
  std::vector<int32_t> unmet(const TermConstraints& constraints) const;
  // The tokens that start or continue an unmet constraint's form; with
  // `may_start` (per constraint), starting only those it allows.
  std::vector<int64_t> wanted(const TermConstraints& constraints, bool at_start,
                              const std::vector<uint8_t>* may_start = nullptr) const;

 private:
  static constexpr int32_t kUnsatisfiable = -1;
  // Per constraint: the length of the form that met it, 0 while unmet,
  // kUnsatisfiable for one without forms (never met, never waited for).
  std::vector<int32_t> met_;
  std::vector<int32_t> partial_;   // per constraint: its most advanced form's tokens ending the row (0 once met)
  // Per constraint: 1 when a form has just been completed (partial_ is its
  // length); met once the next token does not continue its last word.
  std::vector<uint8_t> pending_;
  // Per form: whether its current run started where the row's attention was
  // on the term's source. Any run counts toward meeting the term (the model
  // wrote it), but only aligned runs are continued by force and count in
  // the bank (a word that merely shares a first piece, "▁W" of "Wenn" for
  // "Wagen", is not pushed into the term).
  std::vector<uint8_t> aligned_;
  std::vector<int32_t> progress_;  // per form of every constraint in order: its tokens ending the row
};

struct ConstrainedCandidate {
  int64_t parent = 0, token = 0;
  float sum = 0;  // the row's summed log-probability with the token
  ConstraintState state;
};

// Per constraint: whether a row may start it now, by its cross-attention at
// this step (`step`, per source position): where the strongest source
// position is inside the term's source tokens or next to them (a term goes
// where its source is translated). Empty attention, or a term without
// source positions: it may start.
std::vector<uint8_t> terms_to_start(const TermConstraints& constraints, const std::vector<float>& step);

// The indices of the (at most) `beam` candidates that continue, by dynamic
// beam allocation: banks take turns, the highest bank first, each giving its
// best candidate not yet taken; a bank with none left passes. Candidates
// that are the same row and token count once (the first).
std::vector<size_t> allocate_beam(const std::vector<ConstrainedCandidate>& candidates, int64_t beam);

}  // namespace nmt::decode
