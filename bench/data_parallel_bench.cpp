// Data-parallel training on one machine, side by side in one run: the
// trainer as 1 process x N threads with N-fold accumulation against N ranks
// x 1 thread (trainer --nproc-per-node N), on the same config, data and
// global batch. Prints target tokens/s, step time and the time per step
// spent summing gradients (from each run's metrics.jsonl, the first log
// interval left out as warm-up); then a loopback allreduce of the gradient
// buffers of this model and of the paper's base shape, and what a step's
// communication costs on 1/10/100 Gbit links.
//
//   data_parallel_bench [--config FILE] [--ranks N] [--steps N] [--rounds N] [--work DIR]
//                       [--set KEY=VALUE]...
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "cli/run_main.h"
#include "distributed/communicator.h"
#include "distributed/gradient_sync.h"
#include "distributed/network.h"
#include "model/transformer.h"
#include "util/config.h"
#include "util/error.h"

namespace {

namespace fs = std::filesystem;

struct RunFigures {
  double tokens_per_s = 0, step_ms = 0, allreduce_ms = 0, seconds = 0;
};

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Averages the train lines of metrics.jsonl after the first (warm-up):
// tokens/s as a harmonic mean (intervals of nearly equal token counts).
RunFigures read_metrics(const std::string& path, int64_t log_every) {
  RunFigures f;
  std::ifstream in(path);
  double inverse_rate = 0;
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.value("type", "") != "train" || j.at("step").get<int64_t>() <= log_every) continue;
    inverse_rate += 1.0 / j.at("tokens_per_s").get<double>();
    f.step_ms += j.at("step_ms").get<double>();
    f.allreduce_ms += j.value("allreduce_ms_per_step", 0.0);
    ++lines;
  }
  if (lines == 0) throw nmt::Error("No training lines after warm-up in " + path + "; raise --steps.", 1);
  f.tokens_per_s = lines / inverse_rate;
  f.step_ms /= lines;
  f.allreduce_ms /= lines;
  return f;
}

RunFigures run_trainer(const std::string& trainer, const std::string& command_tail, const std::string& out,
                       int64_t log_every) {
  fs::remove_all(out);
  const auto started = std::chrono::steady_clock::now();
  const std::string command = quote(trainer) + command_tail + " --out " + quote(out) + " > " + quote(out + ".log") +
                              " 2>&1";
  fs::create_directories(fs::path(out).parent_path());
  if (std::system(command.c_str()) != 0) throw nmt::Error("The trainer failed; see " + out + ".log", 1);
  RunFigures f = read_metrics(out + "/metrics.jsonl", log_every);
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return f;
}

// Mean milliseconds of one GradientSync::allreduce over `ranks` in-process
// ranks (threads, Gloo on loopback) for a model of `parameters` floats.
double loopback_allreduce_ms(int64_t parameters, int ranks, int repeats) {
  const int port = nmt::distributed::free_local_port();
  std::vector<double> ms(static_cast<size_t>(ranks));
  auto rank = [&](int r) {
    nmt::distributed::JobEnv job;
    job.rank = r;
    job.world_size = ranks;
    job.local_rank = r;
    job.local_world_size = ranks;
    job.master_port = port;
    nmt::distributed::Communicator comm(job, torch::kCPU);
    auto p = torch::zeros({parameters}, torch::requires_grad());
    p.mutable_grad() = torch::ones({parameters});
    nmt::distributed::GradientSync sync({p});
    std::vector<double> extras = {1.0};
    sync.allreduce(comm, extras);  // warm-up
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) sync.allreduce(comm, extras);
    ms[static_cast<size_t>(r)] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count() / repeats;
    comm.leave();
  };
  std::vector<std::thread> others;
  for (int r = 1; r < ranks; ++r) others.emplace_back(rank, r);
  rank(0);
  for (auto& t : others) t.join();
  return ms[0];
}

int64_t parameter_count(const nmt::ModelConfig& m) {
  nmt::model::Transformer model(m);
  int64_t n = 0;
  for (const auto& p : model->unique_parameters()) n += p.numel();
  return n;
}

void print_link_table(const std::string& name, int64_t parameters, int ranks, double step_seconds) {
  const double bytes = 4.0 * static_cast<double>(parameters);
  const double per_rank = 2.0 * (ranks - 1) / ranks * bytes;  // a ring allreduce's traffic per rank
  std::printf("  %-26s %6.1fM params, %7.1f MB of fp32 gradients; %d ranks: %7.1f MB sent per rank per step\n",
              name.c_str(), parameters / 1e6, bytes / 1e6, ranks, per_rank / 1e6);
  for (double gbit : {1.0, 10.0, 100.0}) {
    const double seconds = per_rank / (gbit * 1e9 / 8.0);
    std::printf("      %5.0f Gbit/s: %8.3f s per step, %5.1f%% of a %.2f s compute step\n", gbit, seconds,
                100.0 * seconds / step_seconds, step_seconds);
  }
}

struct Options {
  std::string config = "configs/multi30k_de_en.json", work = "runs/data_parallel_bench";
  int ranks = 2, rounds = 1;
  int64_t steps = 60, log_every = 10;
  std::vector<std::string> overrides;
  double base_tokens_per_s = 868;
};

// Both runs `rounds` times, alternating; prints each and returns the job's
// mean step milliseconds.
double compare_runs(const Options& o) {
  const std::string trainer = (fs::path(fs::read_symlink("/proc/self/exe")).parent_path() / "trainer").string();
  std::string common = " --config " + quote(o.config) + " --set train.max_steps=" + std::to_string(o.steps) +
                       " --set train.max_minutes=0 --set train.threads=" + std::to_string(o.ranks) +
                       " --set train.log_every_steps=" + std::to_string(o.log_every) +
                       " --set valid.every_steps=100000000 --set valid.bleu=false" +
                       " --set checkpoint.every_steps=100000000 --set checkpoint.average_last=0";
  for (const auto& v : o.overrides) common += " --set " + quote(v);
  // One vocabulary for every run: trained once by the first.
  const std::string shared_vocab = " --set vocab.model=" + quote(o.work + "/single_0/vocab/spm.model");
  std::printf("config %s, %lld steps (first %lld left out), %d ranks, %d round(s)\n", o.config.c_str(),
              static_cast<long long>(o.steps), static_cast<long long>(o.log_every), o.ranks, o.rounds);
  std::printf("%-34s %12s %10s %14s %9s\n", "run", "tgt tok/s", "step ms", "allreduce ms", "wall s");
  double single_rate = 0, job_rate = 0, job_step_ms = 0, job_allreduce_ms = 0;
  for (int round = 0; round < o.rounds; ++round) {
    const std::string n = std::to_string(o.ranks), r = std::to_string(round);
    const std::string vocab = round == 0 ? std::string() : shared_vocab;
    const auto single =
        run_trainer(trainer, common + vocab + " --set train.accum_steps=" + n, o.work + "/single_" + r, o.log_every);
    const auto job = run_trainer(trainer, common + shared_vocab + " --set train.accum_steps=1 --nproc-per-node " + n,
                                 o.work + "/job_" + r, o.log_every);
    std::printf("%-34s %12.0f %10.0f %14s %9.0f\n", ("1 process x " + n + " threads, accum " + n).c_str(),
                single.tokens_per_s, single.step_ms, "-", single.seconds);
    std::printf("%-34s %12.0f %10.0f %14.1f %9.0f\n", (n + " ranks x 1 thread, accum 1").c_str(), job.tokens_per_s,
                job.step_ms, job.allreduce_ms, job.seconds);
    single_rate += single.tokens_per_s / o.rounds;
    job_rate += job.tokens_per_s / o.rounds;
    job_step_ms += job.step_ms / o.rounds;
    job_allreduce_ms += job.allreduce_ms / o.rounds;
  }
  std::printf("ranks / single process: %.2fx target tokens/s; allreduce %.1f%% of a step\n", job_rate / single_rate,
              100.0 * job_allreduce_ms / job_step_ms);
  return job_step_ms;
}

// The base shape with the paper's 25,000-token steps, each machine a pair of
// these cores at `tokens_per_s`: where do more machines stop paying?
void print_scaling_table(int64_t base_params, double tokens_per_s) {
  const double compute_one = 25000.0 / tokens_per_s;
  std::printf("\nbase shape, 25,000 target tokens a step, %.0f tokens/s per machine: step seconds (speed-up)\n",
              tokens_per_s);
  std::printf("  %9s %18s %18s %18s\n", "machines", "1 Gbit/s", "10 Gbit/s", "100 Gbit/s");
  for (int machines : {1, 2, 4, 8, 16, 32, 64, 128}) {
    std::printf("  %9d", machines);
    for (double gbit : {1.0, 10.0, 100.0}) {
      const double traffic = 2.0 * (machines - 1) / machines * 4.0 * static_cast<double>(base_params);
      const double step = compute_one / machines + traffic / (gbit * 1e9 / 8.0);
      std::printf(" %9.2f (%5.1fx)", step, compute_one / step);
    }
    std::printf("\n");
  }
}

int bench(int argc, char** argv) {
  CLI::App app{"Data-parallel training: 1 process x N threads against N ranks x 1 thread"};
  Options o;
  app.add_option("--config", o.config, "trainer config (its data must exist)");
  app.add_option("--ranks", o.ranks, "ranks (and threads of the single process)");
  app.add_option("--steps", o.steps, "optimizer steps per run");
  app.add_option("--rounds", o.rounds, "repeat both runs, alternating");
  app.add_option("--work", o.work, "scratch directory for the runs");
  app.add_option("--set", o.overrides, "extra config overrides for both runs");
  app.add_option("--base-tokens-per-s", o.base_tokens_per_s,
                 "training speed of the base shape on one machine, for the table on paper "
                 "(default: train_speed_bench's bf16 figure on these 2 cores)");
  CLI11_PARSE(app, argc, argv);
  const double job_step_ms = compare_runs(o);

  nmt::Config cfg = nmt::config_from_json(nmt::read_json_file(o.config), o.config);
  nmt::ModelConfig this_model = cfg.model;
  this_model.enc_voc_size = this_model.dec_voc_size = cfg.vocab.size;
  nmt::ModelConfig base = this_model;
  base.d_model = 512;
  base.n_head = 8;
  base.ffn_hidden = 2048;
  base.n_layers = 6;
  const int64_t this_params = parameter_count(this_model), base_params = parameter_count(base);
  std::printf("\nallreduce of the gradients on loopback (%d in-process ranks, Gloo):\n", o.ranks);
  std::printf("  this model (%.1fM params): %.1f ms; base shape (%.1fM params): %.1f ms\n", this_params / 1e6,
              loopback_allreduce_ms(this_params, o.ranks, 10), base_params / 1e6,
              loopback_allreduce_ms(base_params, o.ranks, 5));
  std::printf("\non paper: a step's gradient traffic (ring allreduce, fp32, not overlapped with compute)\n");
  print_link_table("this model", this_params, o.ranks, job_step_ms / 1000.0);
  print_scaling_table(base_params, o.base_tokens_per_s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return nmt::cli::run_main("data_parallel_bench", [&] { return bench(argc, argv); }); }
