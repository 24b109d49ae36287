#include "cli/model_decoding.h"

#include <algorithm>

#include <fmt/format.h>

namespace nmt::cli {

std::string apply_model_decoding(decode::SearchOptions& search, const std::optional<storage::DecodingChoice>& choice,
                                 const std::string& path, GivenSearchFlags given) {
  const auto beam_from = [&](bool from_file) {
    return given.beam ? std::string(" (--beam)") : from_file ? std::string() : std::string(" (default)");
  };
  const auto penalty_from = [&](bool from_file) {
    return given.length_penalty ? std::string(" (--length-penalty)")
           : from_file          ? std::string()
                                : std::string(" (default)");
  };
  if (!choice) {
    return fmt::format("decoding with beam {}{} and length penalty {:.2f}{}; {} does not exist, so nothing was tuned "
                       "on the validation set",
                       search.beam, beam_from(false), search.length_penalty, penalty_from(false), path);
  }
  if (!given.beam) search.beam = std::max(choice->beam, search.nbest);
  if (!given.length_penalty) search.length_penalty = choice->length_penalty;
  const bool any_from_file = !given.beam || !given.length_penalty;
  return fmt::format("decoding with beam {}{} and length penalty {:.2f}{}{}", search.beam, beam_from(true),
                     search.length_penalty, penalty_from(true),
                     any_from_file ? fmt::format(", as the final validation chose on the validation set (BLEU {:.2f} "
                                                 "with {}; {})",
                                                 choice->bleu, choice->checkpoint, path)
                                   : fmt::format(" (the command line's, over {})", path));
}

}  // namespace nmt::cli
