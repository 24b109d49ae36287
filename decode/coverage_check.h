// Whether a piece's translation covers its source, judged by the model's own
// cross-attention: the mass each source word received, summed over the
// target steps of the best hypothesis (Hypothesis::coverage, tracked while
// decoding in the layer that aligns words), compared with a threshold learned
// on ordinary sentences (DIR/lengths.json). A stretch of several words that
// nothing attended to, a target/source length ratio far outside the trained
// spread, or a hypothesis that ran into its length limit makes the piece
// fail: the translator splits it further and translates it again
// (decode/checked_translation.h), and reports what still fails.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decode/hypothesis.h"
#include "vocab/vocab.h"

namespace nmt::decode {

struct CoverageOptions {
  bool check = true;  // --no-coverage-check turns it off
  // Attention mass a source word needs to count as translated; a model
  // directory's learned value replaces the default.
  double threshold = 0.2;
  // A stretch of more uncovered words than this fails the piece.
  int64_t max_uncovered_words = 2;
  // Target/source token ratios outside [min_ratio, max_ratio] fail a piece of
  // at least kRatioCheckTokens source tokens (0, 0: not checked).
  double min_ratio = 0, max_ratio = 0;
  // Rounds of splitting failed pieces further and translating them again.
  int64_t rounds = 2;
  void validate() const;  // UsageError naming the option
};

// Pieces shorter than this are not judged by their length ratio (too noisy).
constexpr int64_t kRatioCheckTokens = 8;

struct PieceCheck {
  int64_t uncovered_words = 0;   // the longest stretch of consecutive words below the threshold
  int64_t uncovered_begin = 0;   // its first source token (index into the piece's ids)
  int64_t uncovered_end = 0;     // one past its last
  int64_t uncovered_total = 0;   // words in all stretches longer than the options allow
  bool ratio_outside = false;    // target/source ratio outside the options' range
  bool length_limited = false;   // the hypothesis reached its maximum length
  bool checked = false;          // false: no hypothesis or no coverage to judge
  bool split_tried = false;      // it failed, and splitting it further did not help
  bool failed(const CoverageOptions& options) const {
    return length_limited || ratio_outside || uncovered_words > options.max_uncovered_words;
  }
};

// A source word of a piece: its tokens [begin, end) and the attention mass they received.
struct WordMass {
  int64_t begin = 0, end = 0;
  double mass = 0;
};

class CoverageChecker {
 public:
  CoverageChecker(std::shared_ptr<const vocab::Vocab> source, CoverageOptions options);

  // `ids`: the piece's source ids (no sos/eos); `best`: its best hypothesis.
  PieceCheck check(const std::vector<int64_t>& ids, const Hypothesis& best) const;
  // The words of `ids` (a word starts at a piece beginning with "▁") with
  // their mass from `coverage` (positions: sos, ids, eos, ...).
  std::vector<WordMass> word_masses(const std::vector<int64_t>& ids, const std::vector<float>& coverage) const;
  const CoverageOptions& options() const { return options_; }

 private:
  std::shared_ptr<const vocab::Vocab> source_;
  CoverageOptions options_;
  std::vector<uint8_t> starts_word_;  // per source id
};

// The lowest threshold at which a sentence with these words would fail the
// check: the least, over every stretch of max_uncovered_words + 1
// consecutive words, of the stretch's largest mass. Infinity for a sentence
// too short to fail.
double failing_threshold(const std::vector<WordMass>& words, int64_t max_uncovered_words);

// The threshold learned from ordinary sentences' failing_threshold values:
// 0.8 x their 1/500 quantile (so that about one ordinary sentence in 500
// fails, at most, where the validation set is small), capped at 0.5; 0 when
// none could fail.
double learn_threshold(std::vector<double> failing_thresholds);

}  // namespace nmt::decode
