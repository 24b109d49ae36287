// DIR/lengths.json: the lengths of the sentences a model was trained on
// (source and target subwords, and their ratio) and what the translator
// learned from them: the longest piece it gives the model in one go
// (decode/line_plan.h), the words that open its training sentences (good
// places to split a run-on), and the coverage threshold of its
// cross-attention (decode/coverage_check.h). Written by the trainer.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nmt::storage {

struct LengthSpread {
  double median = 0, p95 = 0, p99 = 0, max = 0;
};

struct RatioSpread {  // target tokens / source tokens
  double p1 = 0, p5 = 0, median = 0, p95 = 0, p99 = 0;
};

struct LengthProfile {
  static constexpr int64_t kFormatVersion = 1;
  int64_t pairs = 0;  // training pairs counted
  LengthSpread source, target;
  RatioSpread ratio;
  // Per side, pieces ("▁The") that begin at least half of the training
  // sentences they occur in (where a sentence probably starts), and the mark
  // most training sentences end with ("." when at least half do, else "").
  std::vector<std::string> source_openers, target_openers;
  std::string source_final_mark, target_final_mark;
  // Learned from the validation set at the end of training; 0: not learned
  // (the translator's default then). Attention mass per source word below
  // which a word counts as untranslated.
  double coverage_threshold = 0;
  int64_t coverage_sentences = 0;  // validation sentences it was learned from

  // The longest source the translator gives the model in one piece: the
  // trained p99 (at least 8 tokens).
  int64_t max_piece_tokens() const;
};

// Counts pairs one at a time, then gives the profile.
class LengthProfileBuilder {
 public:
  void add(int64_t source_tokens, int64_t target_tokens);
  // Piece ids of one pair's sentences (a sample of the corpus is enough).
  void add_ids(const std::vector<int32_t>& source, const std::vector<int32_t>& target);
  // `source_piece`/`target_piece` name an id's piece (for the openers and marks).
  LengthProfile finish(const std::function<std::string(int32_t)>& source_piece,
                       const std::function<std::string(int32_t)>& target_piece) const;

 private:
  struct SideCounts {  // per piece id
    std::vector<int64_t> first, any, last;
    int64_t sentences = 0;
    void add(const std::vector<int32_t>& ids);
    // Ids that open at least half the sentences they occur in, counted at
    // least 20 times and in at least 1/1000 of the sentences given.
    std::vector<std::string> openers(const std::function<std::string(int32_t)>& piece) const;
    std::string final_mark(const std::function<std::string(int32_t)>& piece) const;
  };

  std::vector<int64_t> source_hist_, target_hist_, ratio_hist_;  // ratio in 1/100 steps
  SideCounts source_ids_, target_ids_;
  int64_t pairs_ = 0;
};

// Written whole or not at all.
void write_length_profile(const std::string& path, const LengthProfile& profile);
// None when the file does not exist; a DataError naming the file when it is
// unreadable, of another format version, or its values are out of range.
std::optional<LengthProfile> read_length_profile(const std::string& path);

}  // namespace nmt::storage
