// Decoding speed of a trained model: sentences/s and target tokens/s for each
// precision, beam size and batch size asked for (default fp32 and bf16, greedy
// and beam 4, batch 1 and 32), how many outputs differ from fp32's and, with
// --ref, BLEU, and the peak resident memory while each row translates (the
// model's included); the speed-up of the key/value cache over recomputing the
// whole prefix at every step (same run, same sentences); the process's peak.
//
//   decode_bench --model DIR --src FILE [--ref FILE] [--limit N] [--ratio-limit N]
//                [--precisions fp32,bf16,int8] [--beams 1,4] [--batches 1,32] [--parallel-batches 1,0]
//                [--no-split-batches] [--threads N] [--blas-threads N] [--device auto|cpu|cuda]
//                [--checkpoint FILE] [--profile N]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "bench/bench_input.h"
#include "bench/op_profile.h"
#include "cli/run_main.h"
#include "decode/translation.h"
#include "eval/bleu.h"
#include "kernels/packed_linear.h"
#include "storage/model_dir.h"
#include "text/line_reader.h"
#include "util/allocator.h"
#include "util/error.h"
#include "util/proc_status.h"
#include "util/threads.h"

// Timed as the translator runs: its allocator settings.
NMT_DECODING_ALLOCATOR

namespace {

using nmt::decode::LineTranslation;
using nmt::decode::Translator;
using nmt::decode::TranslatorOptions;

struct Measurement {
  double seconds = 0;
  double peak_mib = -1;  // peak resident set while translating (model and process included)
  int64_t sentences = 0, target_tokens = 0;
  int64_t resplit = 0;  // pieces the coverage check split and translated again
  std::vector<std::vector<int64_t>> outputs;  // best hypothesis per line
  std::vector<std::string> texts;             // its text
};

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// Linux: VmHWM, the peak resident set since the last reset_peak_rss() (or
// the start); -1 where /proc cannot tell.
double peak_rss_since_reset_mib() { return nmt::proc_status_mib("VmHWM"); }

// Writing 5 to clear_refs resets VmHWM to the current resident set.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

struct Row {
  nmt::Precision precision = nmt::Precision::kFp32;
  int64_t beam = 1, batch = 1, parallel = 1;
  bool cached = true;
  bool split = true;  // parallel 1: each batch's sentences split over the threads (the translator's default)
  bool coverage = false;  // the coverage check on (decode/coverage_check.h), as the translator's default
};

Measurement measure(const nmt::storage::LoadedModel& loaded, const std::vector<std::string>& lines, const Row& row,
                    const torch::Device& device) {
  TranslatorOptions o;
  o.precision = row.precision;
  o.search.beam = row.beam;
  o.search.cached = row.cached;
  o.batch_size = row.batch;
  o.parallel_batches = row.parallel;
  o.split_batches = row.split;
  o.coverage.check = row.coverage;
  if (row.coverage && loaded.lengths && loaded.lengths->coverage_threshold > 0) {
    o.coverage.threshold = loaded.lengths->coverage_threshold;
    o.coverage.min_ratio = loaded.lengths->ratio.p1 / 2;
    o.coverage.max_ratio = loaded.lengths->ratio.p99 * 2;
  }
  Translator translator(loaded.model, loaded.vocabs, o);
  synchronize(device);
  reset_peak_rss();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<LineTranslation> out = translator.translate(lines);
  synchronize(device);
  Measurement m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.peak_mib = peak_rss_since_reset_mib();
  m.sentences = static_cast<int64_t>(lines.size());
  for (const auto& t : out) {
    m.texts.push_back(t.texts.empty() ? std::string() : t.texts.front());
    // Bench lines are single sentences within the model's length: one piece
    // each (the first of a line the check split again).
    m.outputs.push_back(t.hypotheses.empty() ? std::vector<int64_t>{} : t.hypotheses.front().front().tokens);
    m.target_tokens += static_cast<int64_t>(m.outputs.back().size()) + 1;  // eos included
    m.resplit += t.plan.resplit_pieces;
  }
  return m;
}

// `vs_fp32`: outputs that differ from the fp32 row with the same beam and
// batch (-1: not compared); `bleu` < 0: no reference given.
void print_row(const Row& row, const Measurement& m, int64_t vs_fp32, double bleu) {
  std::printf("| %-4s | %4lld | %5lld | %8lld | %-11s | %9lld | %8.2f | %8.1f | %9.0f | %8.0f |",
              nmt::precision_name(row.precision), static_cast<long long>(row.beam), static_cast<long long>(row.batch),
              static_cast<long long>(row.parallel),
              row.cached ? (row.coverage ? "cache+check" : "cache") : "full prefix", static_cast<long long>(m.sentences), m.seconds,
              m.sentences / m.seconds, m.target_tokens / m.seconds, m.peak_mib);
  if (vs_fp32 < 0) {
    std::printf(" %7s |", "-");
  } else {
    std::printf(" %7lld |", static_cast<long long>(vs_fp32));
  }
  if (bleu >= 0) std::printf(" %6.2f |", bleu);
  if (row.coverage) std::printf(" %lld piece(s) split again by the check", static_cast<long long>(m.resplit));
  std::printf("\n");
  std::fflush(stdout);
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}


int64_t differing(const Measurement& a, const Measurement& b) {
  int64_t n = 0;
  for (size_t i = 0; i < a.outputs.size(); ++i) n += a.outputs[i] != b.outputs[i];
  return n;
}

torch::Device pick_device(const std::string& name) {
  if (name == "cpu" || (name == "auto" && !torch::cuda::is_available())) return torch::kCPU;
  if (!torch::cuda::is_available()) throw nmt::UsageError("--device cuda: no CUDA device is available.");
  return torch::kCUDA;
}

std::vector<nmt::Precision> parse_precisions(const std::vector<std::string>& names) {
  std::vector<nmt::Precision> out;
  for (const auto& name : names) {
    // As the translator chooses (auto included); its UsageError names the value.
    out.push_back(nmt::choose_decoding_precision(name, torch::kCPU,
                                                 nmt::kernels::PackedLinear::available(torch::kChar)).precision);
  }
  return out;
}

struct Args {
  std::string model_dir, checkpoint, src, ref, device_name = "auto";
  int64_t limit = 300, ratio_limit = 60;
  int threads = 2, blas_threads = -1;
  size_t profile_rows = 0;  // > 0: an operator profile of each row (slows the row down)
  bool split = true;
  std::vector<std::string> precisions{"fp32", "bf16"};
  std::vector<int64_t> beams{1, 4}, batches{1, 32}, parallel{1, 0};  // parallel 0: --threads
  std::vector<std::string> coverage{"off"};  // off and/or on: rows without and with the coverage check
};

// The speed table: every precision x beam x batch x parallel batches, each
// row compared with fp32's outputs for the same beam and batch.
// Untimed: what a precision builds once (bf16 and int8 weights packed, as a
// translator's first batch does) stays out of the first row timed in it.
void warm_up(const nmt::storage::LoadedModel& loaded, const std::vector<std::string>& lines,
             nmt::Precision precision, const torch::Device& device) {
  const std::vector<std::string> first(lines.begin(), lines.begin() + std::min<size_t>(8, lines.size()));
  measure(loaded, first, Row{precision, 4, 8, 1, true}, device);
}

void speed_table(const Args& a, const nmt::storage::LoadedModel& loaded, const std::vector<std::string>& lines,
                 const std::vector<std::string>& refs, const torch::Device& device) {
  std::printf("| prec | beam | batch | parallel | decoder     | sentences |  seconds |  sent/s | tokens/s | peak MiB |"
              " vs fp32 |%s\n", refs.empty() ? "" : "  BLEU  |");
  std::printf("|------|------|-------|----------|-------------|-----------|----------|---------|----------|----------|"
              "---------|%s\n",
              refs.empty() ? "" : "--------|");
  std::map<std::pair<int64_t, int64_t>, std::vector<std::vector<int64_t>>> fp32_outputs;
  for (const auto precision : parse_precisions(a.precisions)) {
    const int cores = nmt::configure_decoding_threads(a.threads, a.blas_threads).cores;
    warm_up(loaded, lines, precision, device);
    for (int64_t beam : a.beams) {
      for (int64_t batch : a.batches) {
        for (int64_t parallel : a.parallel) {
         for (const std::string& check : a.coverage) {
          const Row row{precision, beam, batch, parallel > 0 ? parallel : cores, true, a.split, check == "on"};
          Measurement m;
          if (a.profile_rows > 0) {
            nmt::bench::print_op_profile([&] { m = measure(loaded, lines, row, device); }, a.profile_rows);
          } else {
            m = measure(loaded, lines, row, device);
          }
          // The first fp32 row of a beam and batch is the one the others are compared with.
          const auto key = std::make_pair(beam, batch);
          const auto first = fp32_outputs.find(key);
          int64_t vs_fp32 = -1;
          if (first == fp32_outputs.end()) {
            if (precision == nmt::Precision::kFp32) fp32_outputs[key] = m.outputs;
          } else {
            vs_fp32 = 0;
            for (size_t i = 0; i < m.outputs.size(); ++i) vs_fp32 += m.outputs[i] != first->second[i];
          }
          print_row(row, m, vs_fp32, refs.empty() ? -1.0 : nmt::eval::corpus_bleu(m.texts, refs).score);
         }
        }
      }
    }
  }
}

int bench_main(int argc, char** argv) {
  CLI::App app{"Decoding speed by precision, beam and batch; cached and full-prefix."};
  Args a;
  app.add_option("--model", a.model_dir, "Model directory")->required();
  app.add_option("--checkpoint", a.checkpoint, "Checkpoint (default: the one the translator would choose)");
  app.add_option("--src", a.src, "Source sentences, one a line (plain or .gz)")->required();
  app.add_option("--ref", a.ref, "Reference translations of --src, line for line: adds BLEU per row");
  app.add_option("--limit", a.limit, "Sentences for the speed table")->capture_default_str();
  app.add_option("--ratio-limit", a.ratio_limit, "Sentences for the cache vs full-prefix ratio")->capture_default_str();
  app.add_option("--precisions", a.precisions, "fp32 and/or bf16")->delimiter(',')->capture_default_str();
  app.add_option("--beams", a.beams, "Beam sizes")->delimiter(',')->capture_default_str();
  app.add_option("--batches", a.batches, "Batch sizes (sentences)")->delimiter(',')->capture_default_str();
  app.add_option("--parallel-batches", a.parallel, "Batches decoded at once, each on one thread (0: --threads)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--split-batches,!--no-split-batches", a.split,
               "Parallel 1: split each batch's sentences over the threads, each part on one core (the translator's "
               "default); --no-split-batches splits every product over the threads instead");
  app.add_option("--coverage", a.coverage,
                 "off and/or on: rows without and with the coverage check (on: the translator's default; the "
                 "threshold from DIR/lengths.json)")
      ->delimiter(',')
      ->check(CLI::IsMember({"off", "on"}))
      ->capture_default_str();
  app.add_option("--threads", a.threads, "CPU threads (set explicitly so runs compare)")->capture_default_str();
  app.add_option("--blas-threads", a.blas_threads, "OpenBLAS threads (default 1: decoding's thread plan)");
  app.add_option("--device", a.device_name, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--profile", a.profile_rows, "Print the N costliest operators of each row (times include the profiler)");
  app.parse(argc, argv);
  const torch::Device device = pick_device(a.device_name);
  const int used = nmt::configure_decoding_threads(a.threads, a.blas_threads).cores;
  const auto loaded = nmt::storage::load_model_dir(a.model_dir, a.checkpoint, device);
  const auto lines = nmt::bench::read_sentences(a.src, a.limit);
  const auto refs = a.ref.empty() ? std::vector<std::string>{} : nmt::bench::read_sentences(a.ref, a.limit);
  if (refs.size() != (a.ref.empty() ? 0 : lines.size())) {
    throw nmt::UsageError("--ref has " + std::to_string(refs.size()) + " lines for " + std::to_string(lines.size()) +
                          " sources.");
  }
  std::printf("model %s (%s), %zu sentences from %s, %d threads, device %s, %s; parallel 1: %s\n\n",
              a.model_dir.c_str(), loaded.checkpoint_path.c_str(), lines.size(), a.src.c_str(), used,
              device.str().c_str(), nmt::allocator_name().c_str(),
              a.split ? "each batch's sentences split over the threads" : "each product split over the threads");
  speed_table(a, loaded, lines, refs, device);
  nmt::configure_decoding_threads(a.threads, a.blas_threads);
  const std::vector<std::string> subset(lines.begin(), lines.begin() + std::min<size_t>(a.ratio_limit, lines.size()));
  if (!subset.empty() && a.ratio_limit > 0) {
    std::printf("\ncache vs full-prefix recomputation (fp32, batch 32), %zu sentences:\n", subset.size());
    warm_up(loaded, subset, nmt::Precision::kFp32, device);  // also where --precisions left fp32 out
    for (int64_t beam : {1, 4}) {
      const auto cached = measure(loaded, subset, Row{nmt::Precision::kFp32, beam, 32, 1, true}, device);
      const auto full = measure(loaded, subset, Row{nmt::Precision::kFp32, beam, 32, 1, false}, device);
      std::printf("  beam %lld: cache %.2f s, full prefix %.2f s: %.2fx faster; %lld of %zu outputs differ\n",
                  static_cast<long long>(beam), cached.seconds, full.seconds, full.seconds / cached.seconds,
                  static_cast<long long>(differing(cached, full)), subset.size());
    }
  }
  std::printf("\npeak RSS of the process (model loading included): %.0f MiB\n", peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nmt::cli::run_main("decode_bench", [&] { return bench_main(argc, argv); });
}
