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
#include "cli/translator_args.h"
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

torch::Device resolve_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  const bool cuda = torch::cuda::is_available();
  if (name == "cuda" && !cuda) throw UsageError("--device cuda was asked for, but no CUDA device is available.");
  return cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

std::string input_name(const TranslatorArgs& a) {
  if (!a.text.empty()) return "the command line";
  return a.input.empty() ? "standard input" : a.input;
}

// What the run keeps while lines stream through.
struct RunContext {
  const TranslatorArgs& args;
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

void check_attention_layer(const TranslatorArgs& a, int64_t n_layers) {
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

int run_translation(TranslatorArgs& a) {
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
  TranslatorArgs a;
  add_translator_options(app, a);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    throw;
  }
  note_given_options(app, a);
  check_translator_args(a);
  if (!a.hypotheses.empty()) return score_files(a.score_ref, a.hypotheses);
  if (!a.import_path.empty()) return import_model_command(a.import_path, a.out_dir);
  return run_translation(a);
}

}  // namespace nmt::cli
