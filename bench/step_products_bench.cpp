// What a decoding step's products alone cost: the products of one decoder
// step of a d_model/ffn/layers/vocab shape (default the de->en recipe's:
// d256, ffn 1024, 3 decoder layers, vocabulary 8000) through
// kernels::PackedLinear, for a few row counts, in fp32, bf16 and int8: time
// a step (best of three runs of --steps steps) and the weight bytes read a
// second. At batch 1 each product reads its whole weight matrix for one row:
// the bytes a second say how close the products run to the memory's speed,
// and the time is what a greedy batch-1 step cannot go below with these
// products (decode_bench times whole steps).
//
//   step_products_bench [--d-model 256] [--ffn 1024] [--layers 3] [--vocab 8000]
//                       [--rows 1,4,32] [--threads 2] [--steps 300]
#include <chrono>
#include <cstdio>
#include <vector>

#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "cli/run_main.h"
#include "kernels/packed_linear.h"

namespace {

struct Shape {
  int64_t in, out;
};

// A decoder step's products: per layer the stacked self-attention
// projection, its output, the cross-attention query and output, the
// feed-forward pair; then the output layer.
std::vector<Shape> step_products(int64_t d, int64_t ffn, int64_t layers, int64_t vocab) {
  std::vector<Shape> s;
  for (int64_t l = 0; l < layers; ++l) {
    for (Shape p : {Shape{d, 3 * d}, Shape{d, d}, Shape{d, d}, Shape{d, d}, Shape{d, ffn}, Shape{ffn, d}}) {
      s.push_back(p);
    }
  }
  s.push_back({d, vocab});
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(int argc, char** argv) {
  int64_t d = 256, ffn = 1024, layers = 3, vocab = 8000, threads = 2, steps = 300;
  std::vector<int64_t> rows_list{1, 4, 32};
  CLI::App app{"The products of one decoding step, timed alone"};
  app.add_option("--d-model", d);
  app.add_option("--ffn", ffn);
  app.add_option("--layers", layers);
  app.add_option("--vocab", vocab);
  app.add_option("--rows", rows_list)->delimiter(',');
  app.add_option("--threads", threads);
  app.add_option("--steps", steps);
  app.parse(argc, argv);
  at::set_num_threads(static_cast<int>(threads));
  torch::NoGradGuard no_grad;
  const auto shapes = step_products(d, ffn, layers, vocab);
  std::printf("d_model %lld, ffn %lld, %lld decoder layers, vocabulary %lld: %zu products a step, %lld threads\n",
              static_cast<long long>(d), static_cast<long long>(ffn), static_cast<long long>(layers),
              static_cast<long long>(vocab), shapes.size(), static_cast<long long>(threads));
  std::printf("| dtype | rows | weight MB a step | products ms a step | weight GB/s |\n|---|---|---|---|---|\n");
  for (auto dtype : {torch::kFloat, torch::kBFloat16, torch::kChar}) {
    if (!nmt::kernels::PackedLinear::available(dtype)) continue;
    std::vector<std::unique_ptr<nmt::kernels::PackedLinear>> products;
    double bytes = 0;
    for (const Shape& s : shapes) {
      products.push_back(std::make_unique<nmt::kernels::PackedLinear>(torch::randn({s.out, s.in}) * 0.05,
                                                                      torch::randn({s.out}) * 0.05, dtype));
      bytes += static_cast<double>(s.in * s.out * (dtype == torch::kFloat ? 4 : dtype == torch::kChar ? 1 : 2));
    }
    for (int64_t rows : rows_list) {
      std::vector<torch::Tensor> inputs;
      for (const Shape& s : shapes) inputs.push_back(torch::randn({rows, s.in}).to(dtype == torch::kChar ? torch::kFloat : dtype));
      auto time_step = [&] {
        const auto start = std::chrono::steady_clock::now();
        for (int64_t t = 0; t < steps; ++t) {
          for (size_t i = 0; i < shapes.size(); ++i) products[i]->forward(inputs[i]);
        }
        return seconds_since(start) / static_cast<double>(steps);
      };
      time_step();  // warm-up: primitives built, weights in cache
      double best = 1e9;
      for (int repeat = 0; repeat < 3; ++repeat) best = std::min(best, time_step());
      std::printf("| %s | %lld | %.1f | %.3f | %.1f |\n", dtype == torch::kFloat ? "fp32" : dtype == torch::kChar ? "int8" : "bf16",
                  static_cast<long long>(rows), bytes / 1e6, best * 1e3, bytes / best / 1e9);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return nmt::cli::run_main("step_products_bench", [&] { return run(argc, argv); }); }
