#include "cli/model_decoding.h"

#include <algorithm>

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "data/corpus_lengths.h"
#include "data/parallel_reader.h"
#include "decode/checked_translation.h"
#include "util/error.h"

namespace nmt::cli {
namespace {

// An imported model's decoding.json: its engine's conventions where the
// command line did not set them.
std::string apply_engine_conventions(decode::SearchOptions& search, const storage::DecodingChoice& choice,
                                     const std::string& path, GivenSearchFlags given) {
  if (!given.length_penalty_form) {
    search.length_penalty_form = decode::length_penalty_form(choice.length_penalty_form, path);
  }
  if (!given.min_length && choice.min_length) search.min_length = *choice.min_length;
  search.ctranslate2_prefix = choice.ctranslate2_prefix;
  if (!given.max_len) {
    if (choice.max_len_a) search.max_len_a = *choice.max_len_a;
    if (choice.max_len_b) search.max_len_b = *choice.max_len_b;
  }
  std::error_code ec;
  return fmt::format("decoding with beam {}, length penalty {:.2f} ({} form), at least {} and at most {} * source + {} "
                     "tokens: {}'s defaults for this model{} where the command line sets none",
                     search.beam, search.length_penalty, decode::length_penalty_form_name(search.length_penalty_form),
                     search.min_length, search.max_len_a, search.max_len_b, choice.engine,
                     std::filesystem::exists(path, ec) ? " (" + path + ")" : "");
}

}  // namespace

int64_t max_source_tokens(const ModelConfig& model) {
  return model.max_len - model.source_ends();
}

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
  if (!choice->engine.empty()) return apply_engine_conventions(search, *choice, path, given);
  const bool any_from_file = !given.beam || !given.length_penalty;
  return fmt::format("decoding with beam {}{} and length penalty {:.2f}{}{}", search.beam, beam_from(true),
                     search.length_penalty, penalty_from(true),
                     any_from_file ? fmt::format(", as the final validation chose on the validation set (BLEU {:.2f} "
                                                 "with {}; {})",
                                                 choice->bleu, choice->checkpoint, path)
                                   : fmt::format(" (the command line's, over {})", path));
}

std::string apply_model_output(decode::TranslatorOptions& options, const std::optional<storage::DecodingChoice>& choice,
                               GivenSearchFlags given) {
  if (choice) {
    if (!given.replace_unknowns) options.replace_unknowns = choice->replace_unknowns;
    if (choice->alignment_layer) {
      options.alignment_layer = choice->alignment_layer;
      options.alignment_heads = choice->alignment_heads;
    }
    options.target_tag = choice->target_tag;
  }
  std::string said;
  if (options.replace_unknowns) {
    said = options.alignment_layer
               ? fmt::format("unknown tokens replaced by the source piece most attended to (decoder layer {}, {})",
                             *options.alignment_layer,
                             options.alignment_heads == 0 ? std::string("all heads")
                                                          : fmt::format("first {} head(s)", options.alignment_heads))
               : std::string("unknown tokens replaced by the source piece most attended to");
  }
  if (!options.target_tag.empty()) {
    said += std::string(said.empty() ? "" : "; ") + "every translation starts with the target tag " +
            options.target_tag + " (not written)";
  }
  return said;
}

std::string complete_length_profile(storage::LoadedModel& loaded, const std::string& dir,
                                    const decode::TranslatorOptions& options) {
  if (loaded.lengths) return "";
  const auto cached = data::cached_training_corpora(dir, loaded.config);
  if (cached.empty()) return "";
  std::vector<const data::EncodedCorpus*> corpora;
  for (const auto& c : cached) corpora.push_back(c.get());
  loaded.lengths = data::corpus_length_profile(corpora, loaded.vocabs);
  std::string learned = "no validation set to learn the coverage threshold on";
  const auto& data = loaded.config.data;
  if (!data.valid_src.empty() && std::filesystem::exists(data.valid_src)) {
    std::cerr << "translator: " << storage::ModelDirPaths(dir).lengths
              << " is missing (a model trained before it existed): computing it from the data cache and the "
                 "validation set, once...\n";
    auto sentences = data::read_parallel_lines(data.valid_src, data.valid_tgt).src;
    const auto limit = static_cast<size_t>(std::max<int64_t>(loaded.config.valid.max_sentences, 0));
    if (limit > 0 && sentences.size() > limit) sentences.resize(limit);
    loaded.lengths->coverage_threshold =
        decode::learn_coverage_threshold(loaded.model, loaded.vocabs, options, sentences);
    loaded.lengths->coverage_sentences = static_cast<int64_t>(sentences.size());
    learned = fmt::format("coverage threshold learned on {} validation sentences", sentences.size());
  }
  const std::string path = storage::ModelDirPaths(dir).lengths;
  try {
    storage::write_length_profile(path, *loaded.lengths);
    return fmt::format("computed {} from the training data's cache ({})", path, learned);
  } catch (const std::exception&) {
    return fmt::format("computed the trained lengths from the training data's cache for this run ({}; {} cannot be "
                       "written)",
                       learned, path);
  }
}

std::string apply_model_lengths(decode::TranslatorOptions& options, const std::optional<storage::LengthProfile>& profile,
                                const std::string& path, int64_t max_source_tokens, GivenSearchFlags given) {
  std::string pieces;
  if (given.max_piece_tokens && options.max_piece_tokens < 1) {
    throw UsageError("--max-piece-tokens must be at least 1 (got " + std::to_string(options.max_piece_tokens) + ").");
  }
  if (given.max_piece_tokens) {
    pieces = fmt::format("pieces of at most {} source tokens (--max-piece-tokens)", options.max_piece_tokens);
  } else if (profile) {
    options.max_piece_tokens = std::min(profile->max_piece_tokens(), max_source_tokens);
    pieces = fmt::format("pieces of at most {} source tokens (the trained p99; {})", options.max_piece_tokens, path);
  } else {
    pieces = fmt::format("pieces of at most {} source tokens (the position table; {} does not exist, so the trained "
                         "lengths are unknown)",
                         max_source_tokens, path);
  }
  if (profile) {
    options.shapes = {profile->source_openers, profile->target_openers, profile->source_final_mark,
                      profile->target_final_mark};
  }
  auto& coverage = options.coverage;
  if (!coverage.check) return pieces + "; coverage check off (--no-coverage-check)";
  if (profile) {
    // Far outside the trained spread of target/source ratios.
    coverage.min_ratio = profile->ratio.p1 / 2;
    coverage.max_ratio = profile->ratio.p99 * 2;
  }
  std::string threshold;
  if (given.coverage_threshold) {
    threshold = fmt::format("{:.3f} (--coverage-threshold)", coverage.threshold);
  } else if (profile && profile->coverage_threshold > 0) {
    coverage.threshold = profile->coverage_threshold;
    threshold = fmt::format("{:.3f}, learned on {} validation sentences", coverage.threshold, profile->coverage_sentences);
  } else {
    threshold = fmt::format("{:.3f}, the default", coverage.threshold);
  }
  return pieces + "; coverage check on (attention threshold " + threshold + ")";
}

}  // namespace nmt::cli
