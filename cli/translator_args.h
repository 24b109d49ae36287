// The translator's command line: its arguments, their options and the
// checks between them (cli/translator_cli.cpp runs what they ask).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/translator_serve.h"
#include "decode/translation.h"

namespace nmt::cli {

// What the command line asked for.
struct TranslatorArgs {
  std::vector<std::string> model_dirs;  // --model, repeated only with --serve
  std::string model_dir, checkpoint, input, output, score_ref, hypotheses, export_path, svg_path;
  std::string import_path, out_dir;  // --import PATH --out DIR
  std::string export_format;         // --export FORMAT --model DIR --out DIR
  std::string score_targets;         // --score-targets FILE
  std::string source_lang, target_lang;  // a pair of a model trained on several (cli/model_pairs.h)
  int64_t attention_layer = -1;
  std::string device = "auto";
  std::string precision = "auto";
  std::string format = "auto";
  int threads = 0;
  int64_t parallel_batches = 1;  // 0: one per core used on the CPU
  bool split_batches = true;     // one batch at a time: its sentences split over the cores (not with --serve)
  decode::TranslatorOptions options = default_decoding();
  std::vector<std::string> text;
  bool beam_given = false, length_penalty_given = false, attention_layer_given = false;
  bool length_penalty_form_given = false, min_length_given = false, max_len_given = false;
  std::string length_penalty_form_name = "gnmt";
  bool max_piece_given = false, coverage_threshold_given = false, replace_unknowns_given = false;
  bool with_scores = false;  // INDEX ||| HYPOTHESIS ||| SCORE lines even for one hypothesis
  ServeArgs serve;
};

// The translator's options on `app`, into `a`.
void add_translator_options(CLI::App& app, TranslatorArgs& a);
// After parsing: which options were given (defaults that a model's
// decoding.json may replace), and the length penalty's form.
void note_given_options(const CLI::App& app, TranslatorArgs& a);
// UsageError for options that do not go together; fills in what follows from
// the others (the model directory, the format, the beam for a wide n-best).
void check_translator_args(TranslatorArgs& a);

}  // namespace nmt::cli
