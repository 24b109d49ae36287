// translator (docs/translating.md): translate lines with a trained model directory, score
// translations against references, export weights, draw cross-attention.
#include "cli/translator_cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <torch/cuda.h>

#include "cli/model_decoding.h"
#include "cli/model_pairs.h"
#include "cli/translator_attention.h"
#include "cli/translator_document.h"
#include "cli/translator_html.h"
#include "cli/translator_output.h"
#include "cli/translator_score.h"
#include "cli/translator_serve.h"
#include "data/language_pair.h"
#include "decode/translation_stream.h"
#include "kernels/packed_linear.h"
#include "cli/model_interop.h"
#include "cli/translator_score_targets.h"
#include "memory/glossary.h"
#include "interop/argos_package.h"
#include "interop/model_loader.h"
#include "storage/model_dir.h"
#include "storage/state_dict.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/precision.h"
#include "util/threads.h"

namespace nmt::cli {
namespace {

constexpr int64_t kChunkLines = 2000;  // lines read, sorted and batched at a time

struct Args {
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

void add_options(CLI::App& app, Args& a) {
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

void check_args(Args& a) {
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

torch::Device resolve_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  const bool cuda = torch::cuda::is_available();
  if (name == "cuda" && !cuda) throw UsageError("--device cuda was asked for, but no CUDA device is available.");
  return cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

std::string input_name(const Args& a) {
  if (!a.text.empty()) return "the command line";
  return a.input.empty() ? "standard input" : a.input;
}

// What the run keeps while lines stream through.
struct RunContext {
  const Args& args;
  decode::Translator& translator;
  TranslationOutput& out;
  std::optional<ReferenceScorer>& refs;
  bool interactive = false;
  std::vector<int64_t> cut_lines{};  // longer than the reader holds (text::kMaxLineBytes)
  bool svg_written = false;
};

void on_translation(RunContext& c, int64_t index, const decode::LineTranslation& t) {
  const std::string where = "line " + std::to_string(index + 1) + " of " + input_name(c.args);
  if (t.plan.invalid_utf8) {
    std::cerr << "translator: warning: " << where << " is not valid UTF-8; its translation is left empty.\n";
  }
  const std::string failures =
      decode::describe_failures(t.plan, c.translator.options().coverage, *c.translator.vocabs().src);
  if (!failures.empty()) std::cerr << "translator: warning: " << where << ": " << failures << ".\n";
  for (const auto& term : t.unmet_terms) std::cerr << "translator: warning: " << where << ": " << decode::describe(term) << ".\n";
  write_translation(c.out.stream(), index, t, c.args.options.search.nbest > 1 || c.args.with_scores);
  if (c.interactive) c.out.stream().flush();
  if (c.refs) c.refs->add(index, t.texts.empty() ? std::string() : t.texts.front());
  if (!c.args.svg_path.empty() && !c.svg_written && !t.texts.empty()) {
    write_attention_svg(c.translator, t, c.args.attention_layer, c.args.svg_path, index);
    c.svg_written = true;
  }
}

int report_end(const RunContext& c, const decode::StreamReport& report) {
  if (!c.args.svg_path.empty() && !c.svg_written) {
    std::cerr << "translator: warning: no line was translated, so " << c.args.svg_path << " was not written.\n";
  }
  print_summary(report, c.args.options.split_sentences, c.translator.max_piece_tokens());
  if (!c.cut_lines.empty()) {
    std::cerr << "translator: warning: " << c.cut_lines.size() << " line(s) of " << input_name(c.args)
              << " are longer than " << text::kMaxLineBytes << " bytes (line " << line_numbers(c.cut_lines)
              << "); only their first " << text::kMaxLineBytes << " bytes were translated.\n";
  }
  int code = kExitOk;
  if (!report.invalid_lines.empty()) {
    std::cerr << "translator: error: " << report.invalid_lines.size() << " line(s) of " << input_name(c.args)
              << " are not valid UTF-8 (line " << line_numbers(report.invalid_lines)
              << "); their translations were left empty.\n";
    code = kExitData;
  }
  if (c.refs) c.refs->print();  // the last line on stderr
  return code;
}

int export_weights(const storage::LoadedModel& loaded, const std::string& path) {
  storage::write_state_dict_file(path, storage::state_dict_of(*loaded.model));
  std::cerr << "translator: wrote the weights of " << loaded.checkpoint_path << " to " << path << ".\n";
  return kExitOk;
}

void check_attention_layer(const Args& a, int64_t n_layers) {
  if (a.svg_path.empty() && !a.attention_layer_given) return;
  if (a.attention_layer >= n_layers || a.attention_layer < -n_layers) {
    throw UsageError("--attention-layer " + std::to_string(a.attention_layer) + " is out of range; the model has " +
                     std::to_string(n_layers) + " decoder layers.");
  }
}

std::ifstream open_input(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw DataError("The input " + path + " is a directory, not a file.");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("Cannot read the input file " + path + " (" + std::strerror(errno) + ").");
  return in;
}

int run_translation(Args& a) {
  const auto device = resolve_device(a.device);
  const bool int8_available = kernels::PackedLinear::available(torch::kChar);
  const PrecisionChoice precision = choose_decoding_precision(a.precision, device, int8_available);
  a.options.precision = precision.precision;
  if (a.options.precision == Precision::kInt8 && !int8_available) {
    throw UsageError("--precision int8 needs VNNI instructions (AVX-512 VNNI or AVX-VNNI) and oneDNN, which this "
                     "CPU or build lacks (without VNNI, int8 products saturate); use fp32 or bf16.");
  }
  std::cerr << "translator: decoding in " << precision_name(precision.precision) << " (" << precision.reason << ").\n";
  const int cores = configure_decoding_threads(a.threads).cores;
  a.options.parallel_batches = !device.is_cpu() ? 1 : a.parallel_batches > 0 ? a.parallel_batches : cores;
  // The server decodes its rounds on all threads, as with --parallel-batches (above).
  a.options.split_batches = a.split_batches && !a.serve.serve;
  const GivenSearchFlags given{a.beam_given,     a.length_penalty_given,      a.max_piece_given,
                               a.coverage_threshold_given, a.length_penalty_form_given, a.min_length_given,
                               a.max_len_given,    a.replace_unknowns_given};
  if (a.serve.serve) return run_server(a.serve, a.model_dirs, a.checkpoint, device, a.options, given);
  auto loaded = interop::load_model(a.model_dir, a.checkpoint, device);
  if (!loaded.why.empty()) {
    std::cerr << "translator: using " << loaded.checkpoint_path << " (step " << loaded.step << "; " << loaded.why
              << ")\n";
  }
  if (!a.export_path.empty()) return export_weights(loaded, a.export_path);
  if (!a.export_format.empty()) return export_model_command(loaded, a.export_format, a.out_dir);
  check_attention_layer(a, loaded.config.model.n_layers);
  const data::TaggedPair pair = choose_pair(loaded, a.model_dir, a.source_lang, a.target_lang);
  a.options.source_language = pair.source;
  a.options.target_language = pair.target;
  a.options.source_tag = pair.tag;
  if (!pair.tag.empty()) {
    std::cerr << "translator: translating " << pair.source << "->" << pair.target << " (the model's language tag "
              << pair.tag << ").\n";
  }
  std::optional<ReferenceScorer> refs;
  if (!a.score_ref.empty()) refs.emplace(a.score_ref, a.options.target_language);
  std::ifstream file;
  if (!a.input.empty()) file = open_input(a.input);
  std::cerr << "translator: "
            << apply_model_decoding(a.options.search, loaded.decoding, storage::ModelDirPaths(a.model_dir).decoding, given)
            << ".\n";
  const std::string output = apply_model_output(a.options, loaded.decoding, given);
  if (!output.empty()) std::cerr << "translator: " << output << ".\n";
  const std::string computed = complete_length_profile(loaded, a.model_dir, a.options);
  if (!computed.empty()) std::cerr << "translator: " << computed << ".\n";
  std::cerr << "translator: "
            << apply_model_lengths(a.options, loaded.lengths, storage::ModelDirPaths(a.model_dir).lengths,
                                   max_source_tokens(loaded.config.model), given)
            << ".\n";
  decode::Translator translator(loaded.model, loaded.vocabs, a.options);
  if (!a.serve.glossaries.empty()) {
    auto glossary = memory::glossary_for_pair(memory::read_glossaries(a.serve.glossaries), pair.source, pair.target,
                                              /*only_pair=*/true);
    if (!glossary) throw DataError("The glossary holds no terms for " + pair.source + "->" + pair.target + ".");
    std::cerr << "translator: glossary: " << glossary->size() << " term(s) for " << pair.source << "->" << pair.target
              << ", met by constrained beam search.\n";
    translator.set_glossary(std::move(glossary));
  }
  TranslationOutput out(a.output);
  if (!a.score_targets.empty()) {
    return score_target_file(translator, a.text.empty() ? lines_of(a.input.empty() ? std::cin : file) : a.text,
                             a.score_targets, out);
  }
  if (const auto format = document::document_format(a.format)) {
    const DocumentInput input{a.input, *format, a.options.target_language,
                              a.attention_layer_given ? std::optional<int64_t>(a.attention_layer) : std::nullopt};
    return translate_document_file(translator, input, out);
  }
  if (a.format == "html") {
    HtmlInput html{a.text, a.input, input_name(a), a.input.empty() && a.text.empty() && ::isatty(STDIN_FILENO), {}};
    if (a.attention_layer_given) html.alignment_layer = a.attention_layer;
    return translate_html(translator, html, out);
  }
  RunContext c{a, translator, out, refs};
  decode::LineSource source;
  if (!a.text.empty()) {
    source = decode::vector_lines(a.text);
  } else {
    source = decode::istream_lines(a.input.empty() ? std::cin : file, text::kMaxLineBytes, &c.cut_lines);
    // Typed lines are answered one by one instead of waiting for a chunk.
    c.interactive = a.input.empty() && ::isatty(STDIN_FILENO);
  }
  const auto report = decode::translate_stream(translator, source, c.interactive ? 1 : kChunkLines,
                                              [&c](int64_t i, const decode::LineTranslation& t) {
                                                on_translation(c, i, t);
                                              });
  if (refs) refs->finish(report.lines);
  out.commit();
  return report_end(c, report);
}

}  // namespace

int translator_main(int argc, char** argv) {
  CLI::App app{"Translate text with a trained Transformer model (see README.md)."};
  Args a;
  add_options(app, a);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    throw;
  }
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
  check_args(a);
  if (!a.hypotheses.empty()) return score_files(a.score_ref, a.hypotheses);
  if (!a.import_path.empty()) return import_model_command(a.import_path, a.out_dir);
  return run_translation(a);
}

}  // namespace nmt::cli
