// What a line of input becomes before the model sees it, and how its
// translation is put back together. A line is one sentence (the command
// line's default, so that aligned test sets stay aligned) or a paragraph split
// into sentences by ICU (--split-sentences; the server always). A sentence
// longer than the model knows (the trained p99 of source lengths,
// DIR/lengths.json, or --max-piece-tokens; at most what its position table
// takes) is never cut short: it is split into pieces within that length at
// clause boundaries first (text/split_to_fit.h; a single word still too long
// for the model, by tokens) and the pieces' translations are joined. Every piece of every line is
// translated in the same length-sorted batches, and the line is rebuilt from
// the translations and the source's own whitespace between them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decode/coverage_check.h"
#include "decode/hypothesis.h"
#include "decode/term_constraints.h"
#include "memory/glossary.h"
#include "text/clause_shape.h"
#include "text/masked_text.h"
#include "text/sentence_splitter.h"
#include "text/split_to_fit.h"
#include "vocab/vocab.h"

namespace nmt::decode {

struct LinePlan {
  std::string text;  // the line planned (the spans below index into it)
  // The placeholders, URLs and other protected spans taken out of the line
  // before planning (text/masked_text.h): `masked.text` is `text`, and
  // decode/placeholder_restore.h puts them back into the translation. No
  // atoms: nothing was taken out.
  text::MaskedText masked;
  std::vector<std::vector<int64_t>> pieces;  // subword ids without sos/eos, each within the model's length
  // Where each piece comes from: the line's bytes it encodes, and the index
  // of its first id in that text's encoding (0 unless a word too long for
  // the model was cut into several pieces by tokens).
  struct Source {
    text::Span span;
    size_t first_token = 0;
    bool chunked = false;         // one of several chunks of a single word
    bool starts = true, ends = true;  // whether it starts / ends its sentence
    bool shaped = false;          // a piece of a split sentence, dressed as a sentence (text/clause_shape.h)
    text::ShapedPiece shape;      // when shaped: the text the model translated and how to undo it
    TermConstraints terms;        // the glossary's terms found in its text: its translation must contain them
  };
  std::vector<Source> sources;
  // The source's text around the pieces, pieces.size() + 1 of them: before
  // the first (only when splitting sentences), between, after the last.
  std::vector<std::string> gaps;
  // The glossary whose terms each piece's translation must contain (null: none).
  std::shared_ptr<const memory::Glossary> glossary;
  // Target ids the translation of the first piece starts with (--target-prefix).
  std::vector<int64_t> target_prefix;
  int64_t sentences = 0;        // sentences of the line (0 for a blank line)
  int64_t long_sentences = 0;   // of them, longer than a piece may be: translated in pieces
  bool invalid_utf8 = false;    // the line is not UTF-8: no pieces
  // After translation (decode/checked_translation.h): per piece, what the
  // coverage check found; and how many pieces failed it and were split
  // further and translated again.
  std::vector<PieceCheck> checks;
  int64_t resplit_pieces = 0;
};

struct LineTranslation {
  LinePlan plan;
  std::vector<std::vector<Hypothesis>> hypotheses;  // per piece, best first
  std::vector<std::string> texts;  // the line rebuilt, per rank (best first); none for a blank or invalid line
  std::vector<double> scores;      // per rank: the sum of its pieces' scores
  std::vector<UnmetTerm> unmet_terms;  // glossary terms the best translation lacks
};

// What the model's training sentences look like on each side
// (DIR/lengths.json): how the pieces of a split sentence are dressed
// (text/clause_shape.h). Empty: pieces go as they are.
struct TrainedShapes {
  std::vector<std::string> source_openers, target_openers;  // pieces such as "▁The"
  std::string source_final_mark, target_final_mark;         // "." or ""
};

struct PieceLimits {
  int64_t max_tokens = 0;        // the longest source the model takes (its position table)
  int64_t max_piece_tokens = 0;  // the longest piece it is given (0: max_tokens)
};

struct PlannerLanguages {
  std::string source, target;  // codes; "" when unknown
};

class LinePlanner {
 public:
  // `languages.source`: the code for ICU's sentence rules ("" for
  // language-neutral ones) and for the conjunctions a sentence is split
  // before. `target` (may be null) and `shapes`: for dressing pieces.
  LinePlanner(std::shared_ptr<const vocab::Vocab> source,
              std::shared_ptr<const vocab::Vocab> target, PieceLimits limits, bool split_sentences,
              PlannerLanguages languages, const TrainedShapes& shapes = {});

  // Thread-safe; no model call. The second form overrides sentence splitting
  // and finds `glossary`'s terms in each piece (LinePlan::Source::terms).
  LinePlan plan(const std::string& line) const { return plan(line, split_sentences_); }
  LinePlan plan(const std::string& line, bool split_sentences,
                std::shared_ptr<const memory::Glossary> glossary = nullptr) const;

  // Piece `i` of `plan` in smaller pieces (each at most about half its
  // tokens) as a plan of their own over plan.text: its gaps are the text
  // between them, with none before the first or after the last. Empty when
  // the piece cannot be split (one word).
  LinePlan split_piece(const LinePlan& plan, size_t i) const;
  int64_t max_piece_tokens() const { return max_piece_; }
  // The sentences plan() would translate `line` as: ICU's when splitting, else the trimmed line.
  std::vector<text::Span> sentences(const std::string& line, bool split_sentences) const;
  const text::SentenceShape& target_shape() const { return target_shape_; }

 private:
  void add_sentence(const std::string& line, text::Span sentence, LinePlan& plan, std::string& gap) const;
  void add_piece(std::vector<int64_t> ids, LinePlan::Source source, LinePlan& plan, std::string& gap) const;
  // The glossary's terms in `span` of `line`, as constraints on the target;
  // `locate`: with their source tokens (the piece encodes the span as it is).
  TermConstraints terms_in(const LinePlan& plan, const std::string& line, text::Span span, bool locate) const;

  // Pieces of `span` of `line`, each within `limit` tokens (by text, then a
  // single word by tokens); `starts`/`ends`: whether the span starts / ends its sentence.
  void add_pieces(const std::string& line, text::Span span, int64_t limit, bool starts, bool ends, LinePlan& plan,
                  std::string& gap) const;

  std::shared_ptr<const vocab::Vocab> source_, target_;
  int64_t max_tokens_, max_piece_;
  bool split_sentences_;
  text::SentenceSplitter splitter_;
  std::vector<uint8_t> source_opener_, target_opener_;  // per id: 1 when it opens training sentences
  std::shared_ptr<const std::vector<uint8_t>> target_continues_;  // word_continuations(*target_)
  text::ClauseHints hints_;
  text::SentenceShape source_shape_, target_shape_;
};

// The glossary terms the best hypotheses of `plan`'s pieces lack, each once.
std::vector<UnmetTerm> unmet_terms(const LinePlan& plan, const std::vector<std::vector<Hypothesis>>& hypotheses);

// Detokenizes each piece's hypotheses (a dressed piece's undressed again by
// `shape`, the target's) and rebuilds the line: rank k joins every piece's
// k-th hypothesis (its last where it has fewer).
LineTranslation rebuild_line(LinePlan plan, std::vector<std::vector<Hypothesis>> hypotheses,
                             const vocab::Vocab& target, const text::SentenceShape& shape = {});

}  // namespace nmt::decode
