// What a decoding step's attention alone costs: kernels::step_attention over
// the caches a beam search holds at some step - each decoder layer's
// self-attention cache (`--length` positions, rows reordered among each
// sentence's beams at every step, as beams change parents) and its
// cross-attention memory (`--source` positions per sentence, shared by the
// sentence's beams) - for the de->en recipe's shape by default (d256, 4 heads,
// 3 decoder layers), in fp32 and bf16, on one thread: time a step's attention
// (best of three runs of --steps steps) and the bytes of keys and values it
// reads a second.
//
//   step_attention_bench [--d-model 256] [--heads 4] [--layers 3] [--sentences 32] [--beam 4]
//                        [--length 24] [--source 24] [--threads 1] [--steps 200]
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "cli/run_main.h"
#include "kernels/attention_cache.h"
#include "kernels/step_attention.h"

namespace {

struct Shape {
  int64_t d = 256, heads = 4, layers = 3, sentences = 32, beam = 4, length = 24, source = 24;
  int64_t rows() const { return sentences * beam; }
};

// One decoder layer's caches after `length` steps of a beam search.
nmt::kernels::DecoderLayerCache layer_cache(const Shape& s, torch::ScalarType dtype, std::mt19937& rng) {
  nmt::kernels::DecoderLayerCache c;
  const int64_t d_head = s.d / s.heads;
  std::uniform_int_distribution<int64_t> beam_of(0, s.beam - 1);
  for (int64_t p = 0; p < s.length; ++p) {
    c.self_attention.append_step(torch::randn({s.rows(), 1, 3 * s.d}).to(dtype), s.heads);
    std::vector<int64_t> parents;  // each row continues a beam of its own sentence
    for (int64_t r = 0; r < s.rows(); ++r) parents.push_back(r / s.beam * s.beam + beam_of(rng));
    c.self_attention.select_rows(torch::tensor(parents));
  }
  c.enc_dec.k = torch::randn({s.sentences, s.heads, s.source, d_head}).to(dtype);
  c.enc_dec.v = torch::randn({s.sentences, s.heads, s.source, d_head}).to(dtype);
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(int argc, char** argv) {
  Shape s;
  int64_t threads = 1, steps = 200;
  CLI::App app{"The attention of one decoding step, timed alone"};
  app.add_option("--d-model", s.d);
  app.add_option("--heads", s.heads);
  app.add_option("--layers", s.layers);
  app.add_option("--sentences", s.sentences);
  app.add_option("--beam", s.beam);
  app.add_option("--length", s.length, "self-attention positions decoded so far");
  app.add_option("--source", s.source, "source positions");
  app.add_option("--threads", threads);
  app.add_option("--steps", steps);
  app.parse(argc, argv);
  at::set_num_threads(static_cast<int>(threads));
  torch::NoGradGuard no_grad;
  std::printf(
      "d_model %lld, %lld heads, %lld layers, %lld sentences x beam %lld, %lld target and %lld source "
      "positions, %lld threads\n",
      static_cast<long long>(s.d), static_cast<long long>(s.heads), static_cast<long long>(s.layers),
      static_cast<long long>(s.sentences), static_cast<long long>(s.beam), static_cast<long long>(s.length),
      static_cast<long long>(s.source), static_cast<long long>(threads));
  std::printf("| dtype | attention ms a step | keys and values MB a step | GB/s |\n|---|---|---|---|\n");
  std::mt19937 rng(7);
  for (auto dtype : {torch::kFloat, torch::kBFloat16}) {
    std::vector<nmt::kernels::DecoderLayerCache> caches;
    for (int64_t l = 0; l < s.layers; ++l) caches.push_back(layer_cache(s, dtype, rng));
    const auto q = torch::randn({s.rows(), s.heads, s.d / s.heads}).to(dtype);
    const double element = dtype == torch::kFloat ? 4.0 : 2.0;
    // Every row's own keys and values of its target positions; the sentence's of its source.
    const double bytes = static_cast<double>(s.layers) * 2.0 * element * static_cast<double>(s.d) *
                         static_cast<double>(s.rows() * s.length + s.sentences * s.source);
    auto time_step = [&] {
      const auto start = std::chrono::steady_clock::now();
      for (int64_t t = 0; t < steps; ++t) {
        for (const auto& c : caches) {
          nmt::kernels::step_attention(q, c.self_attention.step_memory());
          nmt::kernels::step_attention(q, c.enc_dec.step_memory(s.beam, {}));
        }
      }
      return seconds_since(start) / static_cast<double>(steps);
    };
    time_step();
    double best = 1e9;
    for (int repeat = 0; repeat < 3; ++repeat) best = std::min(best, time_step());
    std::printf("| %s | %.3f | %.1f | %.1f |\n", dtype == torch::kFloat ? "fp32" : "bf16", best * 1e3, bytes / 1e6,
                bytes / best / 1e9);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nmt::cli::run_main("step_attention_bench", [&] { return run(argc, argv); });
}
