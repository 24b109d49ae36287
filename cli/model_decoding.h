// The search a model directory is decoded with: the command line's options,
// with the beam size and length penalty the trainer chose on the validation
// set (DIR/decoding.json) wherever the command line set neither; and the line
// that tells the user which are used and where they come from.
#pragma once

#include <optional>
#include <string>

#include "decode/search_options.h"
#include "storage/decoding_choice.h"

namespace nmt::cli {

struct GivenSearchFlags {
  bool beam = false, length_penalty = false;  // set on the command line
};

// Updates `search` (a wider n-best still widens the beam unless --beam was
// given) and returns the sentence to print, naming `path` when the choice is used.
std::string apply_model_decoding(decode::SearchOptions& search, const std::optional<storage::DecodingChoice>& choice,
                                 const std::string& path, GivenSearchFlags given);

}  // namespace nmt::cli
