// Training speed under different CPU thread settings, measured side by side:
// ATen (OpenMP) threads x OpenBLAS threads, in fp32 or bf16 (--precision).
// Each setting runs the trainer's step (forward, label-smoothed loss,
// backward) and an Adam step on the same synthetic batch; settings take turns
// over several rounds so machine load drifts evenly across them. Prints target tokens/s per setting and the ratio to
// the first one. OpenMP's wait policy is fixed at start-up: run
// once more with OMP_WAIT_POLICY=PASSIVE to compare sleeping idle workers.
//
//   train_bench [--config FILE] [--vocab N] [--batch-tokens N] [--len N]
//               [--steps N] [--rounds N] [--settings 1x1,2x1,2x2,1x2]
//               [--precision fp32|bf16]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "cli/run_main.h"
#include "model/transformer.h"
#include "train/train_step.h"
#include "util/blas_kernels.h"
#include "util/config.h"
#include "util/error.h"
#include "util/threads.h"

namespace {

struct ThreadSetting {
  int aten = 1, blas = 1;
  double seconds = 0;
  int64_t tokens = 0;
};

std::vector<ThreadSetting> parse_settings(const std::string& text) {
  std::vector<ThreadSetting> settings;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    ThreadSetting s;
    char rest = 0;
    const int fields = std::sscanf(item.c_str(), "%dx%d%c", &s.aten, &s.blas, &rest);
    if (fields != 2 || s.aten < 1 || s.blas < 1) {
      throw nmt::UsageError("--settings: '" + item + "' is not ATENxBLAS, for example 2x1.");
    }
    settings.push_back(s);
  }
  if (settings.empty()) throw nmt::UsageError("--settings lists no thread setting.");
  return settings;
}

nmt::ModelConfig bench_model_config(const std::string& config_path, int64_t vocab) {
  nmt::ModelConfig model;
  if (!config_path.empty()) model = nmt::config_from_json(nmt::read_json_file(config_path), config_path).model;
  model.enc_voc_size = model.dec_voc_size = vocab;
  model.src_pad_idx = model.trg_pad_idx = 1;
  model.trg_sos_idx = 2;
  model.validate();
  return model;
}

struct SyntheticBatch {
  torch::Tensor src, tgt_in, gold;
};

// Random ids (never pad) with a padded tail on every fourth row, roughly the
// shape of a length-bucketed batch.
SyntheticBatch make_batch(int64_t rows, int64_t len, int64_t vocab) {
  torch::manual_seed(7);
  SyntheticBatch b;
  b.src = torch::randint(4, vocab, {rows, len}, torch::kLong);
  auto tgt = torch::randint(4, vocab, {rows, len + 1}, torch::kLong);
  tgt.index_put_({torch::indexing::Slice(0, torch::indexing::None, 4), torch::indexing::Slice(len - len / 4)}, 1);
  tgt.select(1, 0).fill_(2);
  b.tgt_in = tgt.narrow(1, 0, len);
  b.gold = tgt.narrow(1, 1, len);
  return b;
}

// The trainer's own step (train::forward_backward), then clipping and Adam.
int64_t train_steps(nmt::model::Transformer& model, torch::optim::Adam& optimizer, const SyntheticBatch& synthetic,
                    nmt::Precision precision, int steps) {
  nmt::data::Batch batch;
  batch.src = synthetic.src;
  batch.tgt_in = synthetic.tgt_in;
  batch.gold = synthetic.gold;
  batch.tgt_tokens = synthetic.gold.ne(1).sum().item<int64_t>();
  nmt::train::StepSettings settings;
  settings.precision = precision;
  int64_t tokens = 0;
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    nmt::train::forward_backward(*model, batch, static_cast<double>(batch.tgt_tokens), settings);
    torch::nn::utils::clip_grad_norm_(model->unique_parameters(), 1.0);
    optimizer.step();
    tokens += batch.tgt_tokens;
  }
  return tokens;
}

int bench_main(int argc, char** argv) {
  CLI::App app{"Training speed for several ATen x OpenBLAS thread settings, side by side."};
  std::string config_path, settings_text = "1x1,2x1,2x2,1x2", precision_name = "fp32";
  int64_t vocab = 8000, batch_tokens = 4096, len = 24;
  int steps = 5, rounds = 3;
  app.add_option("--config", config_path, "Training config whose model section is used (default: reference sizes)");
  app.add_option("--vocab", vocab, "Vocabulary size")->capture_default_str();
  app.add_option("--batch-tokens", batch_tokens, "Target cells per batch")->capture_default_str();
  app.add_option("--len", len, "Sentence length in pieces (source and target)")->capture_default_str();
  app.add_option("--steps", steps, "Steps per setting per round")->capture_default_str();
  app.add_option("--rounds", rounds, "Rounds (settings take turns)")->capture_default_str();
  app.add_option("--settings", settings_text, "Comma-separated ATENxBLAS thread pairs")->capture_default_str();
  app.add_option("--precision", precision_name, "fp32 or bf16 (autocast)")
      ->check(CLI::IsMember({"fp32", "bf16"}))
      ->capture_default_str();
  app.parse(argc, argv);
  const auto precision = nmt::choose_precision(precision_name, torch::kCPU).precision;
  if (len < 4 || batch_tokens < len || steps < 1 || rounds < 1) throw nmt::UsageError("Sizes must be positive.");

  const auto model_config = bench_model_config(config_path, vocab);
  auto settings = parse_settings(settings_text);
  nmt::model::Transformer model(model_config);
  model->train();
  torch::optim::Adam optimizer(model->unique_parameters(),
                               torch::optim::AdamOptions(1e-4).betas({0.9, 0.98}).eps(1e-9));
  const auto batch = make_batch(batch_tokens / len, len, vocab);
  std::printf(
      "%s; model d_model %lld, %lld layers, ffn %lld, vocab %lld; batch %lld x %lld; %d steps x %d rounds; "
      "OMP_WAIT_POLICY %s\n\n",
      nmt::precision_name(precision), static_cast<long long>(model_config.d_model),
      static_cast<long long>(model_config.n_layers), static_cast<long long>(model_config.ffn_hidden),
      static_cast<long long>(vocab), static_cast<long long>(batch.src.size(0)), static_cast<long long>(len), steps,
      rounds, std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "(default)");

  for (int round = 0; round <= rounds; ++round) {  // round 0 warms up and is not counted
    for (auto& s : settings) {
      nmt::configure_cpu_threads(s.blas, nmt::Precision::kFp32, s.blas);
      at::set_num_threads(s.aten);  // exactly, not the library's default split
      const auto start = std::chrono::steady_clock::now();
      const int64_t tokens = train_steps(model, optimizer, batch, precision, round == 0 ? 1 : steps);
      if (round == 0) continue;
      s.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      s.tokens += tokens;
    }
  }
  std::printf("| ATen threads | OpenBLAS threads | target tokens/s | s/step | vs first |\n");
  std::printf("|--------------|------------------|-----------------|--------|----------|\n");
  const double base = settings.front().tokens / settings.front().seconds;
  for (const auto& s : settings) {
    const double rate = s.tokens / s.seconds;
    std::printf("| %12d | %16d | %15.0f | %6.3f | %7.2fx |\n", s.aten, s.blas, rate, s.seconds / (steps * rounds),
                rate / base);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  nmt::rerun_with_fitting_blas_kernels(argv);  // as the trainer runs
  return nmt::cli::run_main("train_bench", [&] { return bench_main(argc, argv); });
}
