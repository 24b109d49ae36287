// The search a model directory is decoded with: the command line's options,
// with the beam size and length penalty the trainer chose on the validation
// set (DIR/decoding.json) wherever the command line set neither; and the line
// that tells the user which are used and where they come from.
#pragma once

#include <optional>
#include <string>

#include "decode/search_options.h"
#include "decode/translation.h"
#include "storage/length_profile.h"
#include "storage/model_dir.h"
#include "storage/decoding_choice.h"

namespace nmt::cli {

// The longest source the model takes: its position table less the sos and
// eos it puts around a source.
int64_t max_source_tokens(const ModelConfig& model);

struct GivenSearchFlags {  // set on the command line
  bool beam = false, length_penalty = false;
  bool max_piece_tokens = false, coverage_threshold = false;
  bool length_penalty_form = false, min_length = false, max_len = false;
  bool replace_unknowns = false;
};

// Updates `search` (a wider n-best still widens the beam unless --beam was
// given) and returns the sentence to print, naming `path` when the choice is used.
std::string apply_model_decoding(decode::SearchOptions& search, const std::optional<storage::DecodingChoice>& choice,
                                 const std::string& path, GivenSearchFlags given);

// An imported model's output conventions (decoding.json): unknown tokens
// replaced unless the command line says otherwise, by the engine's
// alignment, and its target tag. Returns the sentence to print, or "" when
// nothing applies.
std::string apply_model_output(decode::TranslatorOptions& options, const std::optional<storage::DecodingChoice>& choice,
                               GivenSearchFlags given);

// A model directory written before DIR/lengths.json existed gets one
// computed from its data cache, with the coverage threshold learned on its
// validation set (data.valid_src, at most valid.max_sentences of it) decoded
// with `options` (written into the directory where it may be, else kept for
// this run): the sentence to print about it, or "" when the directory has
// its file or no cache to compute it from.
std::string complete_length_profile(storage::LoadedModel& loaded, const std::string& dir,
                                    const decode::TranslatorOptions& options);

// Sets the longest piece, the sentence openers and the coverage check's
// threshold and length ratios from the model directory's length profile
// (DIR/lengths.json at `path`) wherever the command line did not, and returns
// the sentence to print about them. Without a profile (a model trained before
// it existed) sentences are split only where the position table ends, as
// before, and the sentence says so.
std::string apply_model_lengths(decode::TranslatorOptions& options, const std::optional<storage::LengthProfile>& profile,
                                const std::string& path, int64_t max_source_tokens, GivenSearchFlags given);

}  // namespace nmt::cli
