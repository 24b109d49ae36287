// What a line of input becomes before the model sees it, and how its
// translation is put back together. A line is one sentence (the command
// line's default, so that aligned test sets stay aligned) or a paragraph split
// into sentences by ICU (--split-sentences; the server always). A sentence
// longer than the model takes is never cut short: it is split into pieces
// that fit (text/split_to_fit.h; a single word still too long, by tokens) and
// the pieces' translations are joined. Every piece of every line is
// translated in the same length-sorted batches, and the line is rebuilt from
// the translations and the source's own whitespace between them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decode/hypothesis.h"
#include "text/sentence_splitter.h"
#include "vocab/sentencepiece_vocab.h"

namespace nmt::decode {

struct LinePlan {
  std::vector<std::vector<int64_t>> pieces;  // subword ids without sos/eos, each within the model's length
  // Where each piece comes from: the line's bytes it encodes, and the index
  // of its first id in that text's encoding (0 unless a word too long for
  // the model was cut into several pieces by tokens).
  struct Source {
    text::Span span;
    size_t first_token = 0;
  };
  std::vector<Source> sources;
  // The source's text around the pieces, pieces.size() + 1 of them: before
  // the first (only when splitting sentences), between, after the last.
  std::vector<std::string> gaps;
  // Target ids the translation of the first piece starts with (--target-prefix).
  std::vector<int64_t> target_prefix;
  int64_t sentences = 0;        // sentences of the line (0 for a blank line)
  int64_t long_sentences = 0;   // of them, longer than the model takes: translated in pieces
  bool invalid_utf8 = false;    // the line is not UTF-8: no pieces
};

struct LineTranslation {
  LinePlan plan;
  std::vector<std::vector<Hypothesis>> hypotheses;  // per piece, best first
  std::vector<std::string> texts;  // the line rebuilt, per rank (best first); none for a blank or invalid line
  std::vector<double> scores;      // per rank: the sum of its pieces' scores
};

class LinePlanner {
 public:
  // `max_tokens`: the longest source the model takes. `language`: the
  // source's code for ICU's sentence rules ("" for language-neutral ones).
  LinePlanner(std::shared_ptr<const vocab::SentencePieceVocab> source, int64_t max_tokens, bool split_sentences,
              const std::string& language);

  // Thread-safe; no model call. The second form overrides sentence splitting.
  LinePlan plan(const std::string& line) const { return plan(line, split_sentences_); }
  LinePlan plan(const std::string& line, bool split_sentences) const;

 private:
  void add_sentence(const std::string& line, text::Span sentence, LinePlan& plan, std::string& gap) const;
  void add_piece(std::vector<int64_t> ids, LinePlan::Source source, LinePlan& plan, std::string& gap) const;

  std::shared_ptr<const vocab::SentencePieceVocab> source_;
  int64_t max_tokens_;
  bool split_sentences_;
  text::SentenceSplitter splitter_;
};

// Detokenizes each piece's hypotheses and rebuilds the line: rank k joins
// every piece's k-th hypothesis (its last where it has fewer).
LineTranslation rebuild_line(LinePlan plan, std::vector<std::vector<Hypothesis>> hypotheses,
                             const vocab::SentencePieceVocab& target);

}  // namespace nmt::decode
