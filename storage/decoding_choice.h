// DIR/decoding.json: the beam size and length penalty the trainer's final
// validation found best on the validation set (valid.tune_beams x
// valid.tune_length_penalties), which the translator and the server decode
// with unless told otherwise.
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
