#include "cli/translator_args.h"

#include <filesystem>
#include <iostream>

#include "cli/model_decoding.h"
#include "cli/model_pairs.h"
#include "cli/translator_document.h"
#include "cli/translator_output.h"
#include "interop/argos_package.h"
#include "util/error.h"

namespace nmt::cli {

void add_translator_options(CLI::App& app, TranslatorArgs& a) {
  auto& s = a.options.search;
  app.add_option("--model", a.model_dirs,
                 "Model directory written by the trainer (with --serve: may be repeated, one server for all)")
      ->allow_extra_args(false);
  app.add_option("--checkpoint", a.checkpoint,
                 "Checkpoint file (default: the better scored of best.pt and average.pt in DIR/checkpoints, else "
                 "last.pt)");
  app.add_option("--beam", s.beam, "Beam size; 1 is greedy decoding")->capture_default_str();
  app.add_option("--nbest", s.nbest, "Print the K best hypotheses per line as INDEX ||| HYPOTHESIS ||| SCORE")
      ->capture_default_str();
  app.add_flag("--with-scores", a.with_scores,
               "Print INDEX ||| HYPOTHESIS ||| SCORE lines (as --nbest does) even for one hypothesis a line");
  app.add_option("--batch-size", a.options.batch_size, "Sentences per batch (sorted by length)")
      ->capture_default_str();
  app.add_option("--max-len-a", s.max_len_a, "Output limit: A * source tokens + B")->capture_default_str();
  app.add_option("--max-len-b", s.max_len_b, "Output limit: A * source tokens + B")->capture_default_str();
  app.add_option("--length-penalty", s.length_penalty,
                 "GNMT length penalty alpha: scores are divided by ((5 + length) / 6)^alpha; 0 disables")
      ->capture_default_str();
  app.add_option("--length-penalty-form", a.length_penalty_form_name,
                 "gnmt: ((5 + length) / 6)^alpha; power: length^alpha, as CTranslate2 divides (the default of models "
                 "imported from it)")
      ->check(CLI::IsMember({"gnmt", "power"}))
      ->capture_default_str();
  app.add_option("--patience", s.patience,
                 "Beam search ends a sentence once beam x P hypotheses have finished; more searches longer")
      ->capture_default_str();
  app.add_option("--min-length", s.min_length, "No end of sentence before this many subword tokens")
      ->capture_default_str();
  app.add_option("--no-repeat-ngram-size", s.no_repeat_ngram_size,
                 "No n-gram of this many subword tokens twice in a translation; 0 disables")
      ->capture_default_str();
  app.add_option("--repetition-penalty", s.repetition_penalty,
                 "Log-probabilities of tokens already in the translation are multiplied by R (above 1: fewer "
                 "repeats); 1 disables")
      ->capture_default_str();
  app.add_option("--sampling-topk", s.sampling_topk,
                 "Sample each token from the K most probable (0: from all); 1 is no sampling")
      ->capture_default_str();
  app.add_option("--sampling-topp", s.sampling_topp,
                 "When sampling: from the smallest set of tokens whose probability reaches P")
      ->capture_default_str();
  app.add_option("--sampling-temperature", s.sampling_temperature,
                 "When sampling: log-probabilities divided by T first (above 1: more varied)")
      ->capture_default_str();
  app.add_option("--seed", s.seed, "When sampling: the same seed gives the same samples")->capture_default_str();
  app.add_flag("--target-prefix", a.options.target_prefix,
               "Input lines are SOURCE<TAB>PREFIX: the translation starts with PREFIX");
  app.add_option("--input", a.input, "Input file, one sentence a line (default: TEXT, else standard input)");
  app.add_option("--output", a.output, "Output file, written whole or not at all (default: standard output)");
  app.add_option("--score", a.score_ref, "Reference file: print BLEU and chrF2 as JSON on standard error");
  app.add_option("--hypotheses", a.hypotheses, "With --score: score this existing translation file, no model");
  app.add_option("--export-state-dict", a.export_path, "Write the weights in the reference's state_dict format");
  app.add_option("--import", a.import_path,
                 "Write a model directory of this program (--out DIR) from a model of another engine: a CTranslate2 "
                 "model directory, an Argos Translate package or a Marian model folder");
  app.add_option("--export", a.export_format,
                 "Write the --model as another engine's model (--out PATH): ct2, a CTranslate2 model directory; "
                 "argos, an Argos Translate package (a folder, or a .argosmodel file where PATH ends so); marian, a Marian "
                 "model folder (models read from Marian)")
      ->check(CLI::IsMember({"ct2", "argos", "marian"}));
  app.add_option("--score-targets", a.score_targets,
                 "Instead of translating, score line i of FILE as the translation of input line i: TOTAL ||| LP1 ... "
                 "LPn, each token's log-probability, the end token last");
  app.add_option("--out", a.out_dir, "With --import or --export: the directory to write (must not exist)");
  app.add_option("--attention-svg", a.svg_path, "Draw the cross-attention of the first translated line as SVG");
  app.add_option("--attention-layer", a.attention_layer,
                 "Decoder layer drawn, and with --format html the one that aligns markup (negative: from the last; "
                 "default: the last for the picture, the second to last for HTML)");
  app.add_option("--device", a.device, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--precision", a.precision,
                 "fp32, bf16, int8 (the CPU's matrix products in int8, the rest fp32), or auto: bf16 where the "
                 "device runs it fast (CUDA, CPUs with avx512_bf16 or AMX)")
      ->check(CLI::IsMember({"auto", "fp32", "bf16", "int8"}))
      ->capture_default_str();
  app.add_option("--threads", a.threads, "CPU threads (0: one per core)")->capture_default_str();
  app.add_option("--parallel-batches", a.parallel_batches,
                 "Batches decoded at once on the CPU, each on one thread (0: one per CPU thread; 1: each batch on "
                 "all threads). Not with --serve")
      ->capture_default_str();
  app.add_flag("--split-batches,!--no-split-batches", a.split_batches,
               "With one batch at a time on the CPU: split each batch's sentences over the threads, each part on one "
               "core (default); --no-split-batches splits every matrix product over the threads instead. Not with "
               "--serve");
  app.add_option("--format", a.format,
                 "auto (from --input's extension; text without it), text, html (each input line an HTML fragment; "
                 "--input: one whole HTML file), or a document read from --input: docx, odt, pptx, odp, epub, srt, md")
      ->check(CLI::IsMember({"auto", "text", "txt", "html", "docx", "odt", "pptx", "odp", "epub", "srt", "md"}))
      ->capture_default_str();
  app.add_flag("--split-sentences", a.options.split_sentences,
               "Each input line is a paragraph: split it into sentences (ICU) and rebuild it with its spacing");
  app.add_option("--max-piece-tokens", a.options.max_piece_tokens,
                 "Longest source given to the model in one piece; longer sentences are split at clause boundaries "
                 "(default: the trained p99 of DIR/lengths.json)");
  app.add_flag("--coverage-check,!--no-coverage-check", a.options.coverage.check,
               "Check each piece's translation by its cross-attention; split and retranslate pieces whose source "
               "words went unattended, and report what stays uncovered (default: on)");
  app.add_flag("--replace-unknowns,!--no-replace-unknowns", a.options.replace_unknowns,
               "Write each unknown target token as the source piece the model attends to most as it writes it, as "
               "CTranslate2's replace_unknowns does (default: on for Argos packages, as argos-translate asks; off "
               "otherwise)");
  app.add_option("--coverage-threshold", a.options.coverage.threshold,
                 "Attention mass a source word needs to count as translated (default: learned, DIR/lengths.json)");
  app.add_flag("--placeholders,!--no-placeholders", a.options.placeholders.enabled,
               "Keep format placeholders (%s, {0}, {{name}}, ${name}), inline tags, URLs and e-mail addresses out of "
               "the model's sight and put them back verbatim where the translation aligns them (default: on)");
  app.add_flag("--colon-placeholders", a.options.placeholders.colon_names, "Also keep :name placeholders verbatim");
  app.add_option("--keep-verbatim", a.options.placeholders.literals,
                 "A string to keep untranslated wherever it occurs (repeatable: product names, code)");
  app.add_option("--glossary", a.serve.glossaries,
                 "Terms that must be translated so: a TSV (source TAB target a line; a first line \"en<TAB>de\" names "
                 "its pair) or a TBX file; SRC-TGT=FILE names the pair (repeatable; with --serve, each served pair "
                 "takes the terms of its languages)")
      ->allow_extra_args(false);
  app.add_option("--source-lang", a.source_lang,
                 "With a model trained on several directions: the language translated from (e.g. de)");
  app.add_option("--target-lang", a.target_lang,
                 "With a model trained on several directions: the language translated into (e.g. en)");
  app.add_option("text", a.text, "Sentences to translate, one per argument");
  add_serve_options(app, a.serve);
}

void note_given_options(const CLI::App& app, TranslatorArgs& a) {
  a.beam_given = app.count("--beam") > 0;
  a.length_penalty_given = app.count("--length-penalty") > 0;
  a.length_penalty_form_given = app.count("--length-penalty-form") > 0;
  a.min_length_given = app.count("--min-length") > 0;
  a.max_len_given = app.count("--max-len-a") > 0 || app.count("--max-len-b") > 0;
  a.options.search.length_penalty_form = decode::length_penalty_form(a.length_penalty_form_name, "--length-penalty-form");
  a.attention_layer_given = app.count("--attention-layer") > 0;
  a.max_piece_given = app.count("--max-piece-tokens") > 0;
  a.coverage_threshold_given = app.count("--coverage-threshold") > 0;
  a.replace_unknowns_given = app.count("--replace-unknowns") + app.count("--no-replace-unknowns") > 0;
}

void check_translator_args(TranslatorArgs& a) {
  if (!a.export_format.empty()) {
    if (a.out_dir.empty() || a.model_dirs.size() != 1 || a.serve.serve || !a.import_path.empty()) {
      throw UsageError("--export FORMAT writes one --model DIR to --out PATH.");
    }
    a.model_dir = a.model_dirs.front();
    return;
  }
  if (!a.import_path.empty() || !a.out_dir.empty()) {
    if (a.import_path.empty() || a.out_dir.empty()) throw UsageError("--import PATH and --out DIR go together.");
    if (!a.model_dirs.empty() || a.serve.serve || !a.input.empty() || !a.text.empty() || !a.output.empty()) {
      throw UsageError("--import writes a model directory; it takes no --model, --serve, --input, --output or TEXT.");
    }
    return;
  }
  if (!a.hypotheses.empty()) {
    if (a.score_ref.empty()) throw UsageError("--hypotheses FILE needs --score REF_FILE to score against.");
    if (!a.input.empty() || !a.text.empty()) {
      throw UsageError("--hypotheses scores an existing file; it takes no --input or TEXT to translate.");
    }
    return;
  }
  if (a.model_dirs.size() > 1 && !a.serve.serve) {
    throw UsageError("--model is given " + std::to_string(a.model_dirs.size()) +
                     " times; only --serve serves several models.");
  }
  if (!a.model_dirs.empty()) a.model_dir = a.model_dirs.front();
  if (a.serve.serve && a.model_dirs.empty() && a.serve.models_dir.empty()) {
    // As LibreTranslate: the Argos Translate packages installed for this user.
    a.serve.models_dir = interop::default_argos_packages_dir();
    if (!std::filesystem::is_directory(a.serve.models_dir)) {
      throw UsageError("--serve needs a model: --model DIR or --models-dir DIR (without them it serves the Argos "
                       "Translate packages in " + a.serve.models_dir + ", LibreTranslate's folder, which does not "
                       "exist here).");
    }
    std::cerr << "translator: serving the Argos Translate packages in " << a.serve.models_dir
              << " (where LibreTranslate keeps them; --model or --models-dir serve others).\n";
  }
  if (a.serve.serve && !a.serve.models_dir.empty()) {
    if (!a.model_dirs.empty()) throw UsageError("Give --model DIR (repeated) or --models-dir DIR, not both.");
    a.model_dirs = model_dirs_under(a.serve.models_dir);
    a.model_dir = a.model_dirs.front();
  }
  if (a.model_dir.empty()) {
    throw UsageError("--model DIR is required (or --score REF --hypotheses HYP to score a file; with --serve, "
                     "--models-dir DIR).");
  }
  if (a.model_dirs.size() > 1 && !a.checkpoint.empty()) {
    throw UsageError("--checkpoint names one model's file; with several models each uses its own best.");
  }
  if (!a.input.empty() && !a.text.empty()) throw UsageError("Give either --input FILE or TEXT arguments, not both.");
  if (a.serve.serve && (!a.input.empty() || !a.text.empty() || !a.output.empty() || !a.score_ref.empty() ||
                        !a.export_path.empty() || !a.svg_path.empty())) {
    throw UsageError("--serve translates requests; it takes no TEXT, --input, --output, --score, "
                     "--export-state-dict or --attention-svg.");
  }
  if (a.serve.serve) {
    a.serve.server.validate();
    if (!a.source_lang.empty() || !a.target_lang.empty()) {
      throw UsageError("--serve serves every pair of its models; it takes no --source-lang or --target-lang.");
    }
  }
  if (!a.serve.serve) a.format = resolved_format(a.format, a.input, a.output);
  if (!a.score_targets.empty() && (a.format != "text" || a.serve.serve || !a.score_ref.empty())) {
    throw UsageError("--score-targets scores plain text lines; it takes no --format, --serve or --score.");
  }
  if (a.format != "text" &&
      (a.options.search.nbest > 1 || a.with_scores || !a.score_ref.empty() || !a.svg_path.empty())) {
    throw UsageError("--format " + a.format + " writes one translated document per input; it takes no --nbest, "
                     "--with-scores, --score or --attention-svg.");
  }
  if (a.threads < 0) throw UsageError("--threads must not be negative (got " + std::to_string(a.threads) + ").");
  if (a.parallel_batches < 0) {
    throw UsageError("--parallel-batches must not be negative (got " + std::to_string(a.parallel_batches) + ").");
  }
  // Under load a server decoding rounds in parallel batches fails after a
  // minute or two at 64 connections: oneDNN's bf16 primitive creation throws
  // (std::bad_array_new_length in its brgemm kernel) in the thread that runs
  // the rounds, even with oneDNN's cache kept from evicting
  // (kernels/onednn_cache.h). Until that is found the server decodes one batch
  // at a time.
  if (a.serve.serve && a.parallel_batches != 1) {
    throw UsageError("--parallel-batches is not available with --serve yet; the server decodes one batch at a time.");
  }
  // A wider n-best asks for a wider beam unless the beam was set explicitly.
  if (!a.beam_given && a.options.search.nbest > a.options.search.beam) a.options.search.beam = a.options.search.nbest;
  a.options.validate();
}

}  // namespace nmt::cli
