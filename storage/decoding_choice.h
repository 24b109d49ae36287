// DIR/decoding.json: the beam size and length penalty the trainer's final
// validation found best on the validation set (valid.tune_beams x
// valid.tune_length_penalties), which the translator and the server decode
// with unless told otherwise. A model imported from another engine records
// that engine's default search instead (`engine`), with its conventions:
// the length penalty's form, the least output length and the output limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nmt::storage {

struct DecodingTrial {
  int64_t beam = 4;
  double length_penalty = 0.6;
  double bleu = 0;
};

struct DecodingChoice {
  int64_t beam = 4;
  double length_penalty = 0.6;
  double bleu = 0;          // of the chosen pair on the validation set
  std::string checkpoint;   // the checkpoint file it was tuned with
  std::vector<DecodingTrial> trials;  // every pair tried, in order
  // Imported models: the engine whose defaults these are ("" for a trained
  // model), the penalty's form ("gnmt" or "power"), and where set the least
  // output length and the output limit (a * source tokens + b).
  std::string engine;
  std::string length_penalty_form = "gnmt";
  std::optional<int64_t> min_length;
  std::optional<double> max_len_a;
  std::optional<int64_t> max_len_b;
  bool ctranslate2_prefix = false;  // decode::SearchOptions::ctranslate2_prefix
  // The engine's output conventions: unknown target tokens replaced by the
  // source token the alignment attends to most (CTranslate2's
  // replace_unknowns; argos-translate asks for it), the alignment being
  // decoder layer `alignment_layer` (negative: from the last) with its first
  // `alignment_heads` heads averaged (0: all), as CTranslate2 reads
  // model.bin's decoder/alignment_layer and alignment_heads; and a target
  // token every translation starts with and that is left out of its text (an
  // Argos package's target_prefix: a multilingual model's target language).
  bool replace_unknowns = false;
  std::optional<int64_t> alignment_layer;
  int64_t alignment_heads = 0;
  std::string target_tag;
};

// The best trial: highest BLEU, the earliest on a tie (the grid lists
// smaller beams first, so a tie goes to the faster search).
DecodingChoice choose_decoding(const std::vector<DecodingTrial>& trials, const std::string& checkpoint);

// Written whole or not at all.
void write_decoding_choice(const std::string& path, const DecodingChoice& choice);

// None when the file does not exist; a DataError naming the file when it is
// unreadable or its values are out of range.
std::optional<DecodingChoice> read_decoding_choice(const std::string& path);

}  // namespace nmt::storage
