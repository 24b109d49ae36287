// Decoding speed of a trained model: sentences/s and target tokens/s for
// greedy and beam 4 at batch sizes 1 and 32, the speed-up of the key/value
// cache over recomputing the whole prefix at every step (same run, same
// sentences), and the peak resident memory.
//
//   decode_bench --model DIR --src FILE [--limit N] [--ratio-limit N]
//                [--threads N] [--blas-threads N] [--device auto|cpu|cuda]
//                [--checkpoint FILE]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "app/cli/run_main.h"
#include "bench/bench_input.h"
#include "data/line_reader.h"
#include "decode/translation.h"
#include "model/model_dir.h"
#include "util/error.h"
#include "util/threads.h"

namespace {

using nmt::decode::SentenceTranslation;
using nmt::decode::Translator;
using nmt::decode::TranslatorOptions;

struct Measurement {
  double seconds = 0;
  int64_t sentences = 0, target_tokens = 0;
  std::vector<std::vector<int64_t>> outputs;  // best hypothesis per line
};

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

Measurement measure(const nmt::model::LoadedModel& loaded, const std::vector<std::string>& lines, int64_t beam,
                    int64_t batch, bool cached, const torch::Device& device) {
  TranslatorOptions o;
  o.search.beam = beam;
  o.search.cached = cached;
  o.batch_size = batch;
  Translator translator(loaded.model, loaded.vocabs, o);
  synchronize(device);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SentenceTranslation> out = translator.translate(lines);
  synchronize(device);
  Measurement m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.sentences = static_cast<int64_t>(lines.size());
  for (const auto& t : out) {
    m.outputs.push_back(t.hypotheses.empty() ? std::vector<int64_t>{} : t.hypotheses.front().tokens);
    m.target_tokens += static_cast<int64_t>(m.outputs.back().size()) + 1;  // eos included
  }
  return m;
}

void print_row(int64_t beam, int64_t batch, bool cached, const Measurement& m) {
  std::printf("| %4lld | %5lld | %-11s | %9lld | %8.2f | %8.1f | %9.0f |\n", static_cast<long long>(beam),
              static_cast<long long>(batch), cached ? "cache" : "full prefix", static_cast<long long>(m.sentences),
              m.seconds, m.sentences / m.seconds, m.target_tokens / m.seconds);
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

int bench_main(int argc, char** argv) {
  CLI::App app{"Decoding speed: greedy and beam search, cached and full-prefix."};
  std::string model_dir, checkpoint, src, device_name = "auto";
  int64_t limit = 300, ratio_limit = 60;
  int threads = 2, blas_threads = -1;
  app.add_option("--model", model_dir, "Model directory")->required();
  app.add_option("--checkpoint", checkpoint, "Checkpoint (default best.pt, else last.pt)");
  app.add_option("--src", src, "Source sentences, one a line (plain or .gz)")->required();
  app.add_option("--limit", limit, "Sentences for the speed table")->capture_default_str();
  app.add_option("--ratio-limit", ratio_limit, "Sentences for the cache vs full-prefix ratio")->capture_default_str();
  app.add_option("--threads", threads, "CPU threads (set explicitly so runs compare)")->capture_default_str();
  app.add_option("--blas-threads", blas_threads, "OpenBLAS threads (default: as --threads)");
  app.add_option("--device", device_name, "auto, cpu or cuda")->capture_default_str();
  app.parse(argc, argv);
  const torch::Device device = pick_device(device_name);
  const int used = nmt::configure_cpu_threads(threads, nmt::Precision::kFp32, blas_threads).cores;
  const auto loaded = nmt::model::load_model_dir(model_dir, checkpoint, device);
  const auto lines = nmt::bench::read_sentences(src, limit);
  std::printf("model %s (%s), %zu sentences from %s, %d threads (OpenBLAS %d), device %s\n\n", model_dir.c_str(),
              loaded.checkpoint_path.c_str(), lines.size(), src.c_str(), used, nmt::blas_threads(),
              device.str().c_str());
  const std::vector<std::string> warm_up(lines.begin(), lines.begin() + std::min<size_t>(8, lines.size()));
  measure(loaded, warm_up, 4, 8, true, device);
  std::printf("| beam | batch | decoder     | sentences |  seconds |  sent/s | tokens/s |\n");
  std::printf("|------|-------|-------------|-----------|----------|---------|----------|\n");
  for (int64_t beam : {1, 4}) {
    for (int64_t batch : {1, 32}) print_row(beam, batch, true, measure(loaded, lines, beam, batch, true, device));
  }
  const std::vector<std::string> subset(lines.begin(), lines.begin() + std::min<size_t>(ratio_limit, lines.size()));
  std::printf("\ncache vs full-prefix recomputation, %zu sentences:\n", subset.size());
  for (int64_t beam : {1, 4}) {
    const auto cached = measure(loaded, subset, beam, 32, true, device);
    const auto full = measure(loaded, subset, beam, 32, false, device);
    print_row(beam, 32, true, cached);
    print_row(beam, 32, false, full);
    std::printf("  beam %lld: cache is %.2fx faster; %lld of %zu outputs differ\n", static_cast<long long>(beam),
                full.seconds / cached.seconds, static_cast<long long>(differing(cached, full)), subset.size());
  }
  std::printf("\npeak RSS: %.0f MiB\n", peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nmt::cli::run_main("decode_bench", [&] { return bench_main(argc, argv); });
}
