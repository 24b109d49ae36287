// Training speed against a plain PyTorch peer, side by side in one run: our
// training step (train::forward_backward, clipping, Adam: what the trainer
// runs) and bench/pytorch_peer.py (torch.nn.Transformer with embeddings and
// an output layer, under Debian's python3-torch) train on the same token
// batches, model shape and cores, in fp32 and in bf16 (our precision
// "bf16"; the peer's `torch.autocast("cpu", dtype=torch.bfloat16)`).
// Prints target tokens/s for each and the ratios.
//
// Shapes: multi30k (the recipe: d_model 256, 4 heads, ffn 1024, 3+3 layers)
// and base (the paper's: d_model 512, 8 heads, ffn 2048, 6+6), both Pre-LN
// with shared, tied, scaled embeddings over an 8000-piece vocabulary.
// Batches: sentence pairs with Multi30k-like lengths, sorted and cut into
// batches of at most --batch-tokens padded cells as the trainer cuts them.
//
//   train_speed_bench [--shapes multi30k,base] [--precisions fp32,bf16]
//                     [--batch-tokens N] [--steps N] [--warmup N] [--threads N]
//                     [--no-peer] [--profile] [--python PATH] [--peer-script PATH]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "bench/op_profile.h"
#include "cli/run_main.h"
#include "data/batch.h"
#include "data/batch_plan.h"
#include "data/encoded_corpus.h"
#include "model/transformer.h"
#include "train/train_step.h"
#include "util/blas_kernels.h"
#include "util/error.h"
#include "util/precision.h"
#include "util/threads.h"

namespace {

constexpr int64_t kVocab = 8000;
constexpr int64_t kPad = 1, kBos = 2;  // data::SpecialIds' defaults

struct Shape {
  std::string name;
  int64_t d_model, heads, ffn, layers;
};

const std::map<std::string, Shape> kShapes = {{"multi30k", {"multi30k", 256, 4, 1024, 3}},
                                              {"base", {"base", 512, 8, 2048, 6}}};

nmt::ModelConfig model_config(const Shape& s) {
  nmt::ModelConfig m;
  m.d_model = s.d_model;
  m.n_head = s.heads;
  m.ffn_hidden = s.ffn;
  m.n_layers = s.layers;
  m.drop_prob = 0.1;
  m.enc_voc_size = m.dec_voc_size = kVocab;
  m.src_pad_idx = m.trg_pad_idx = kPad;
  m.trg_sos_idx = kBos;
  m.pre_norm = m.share_embeddings = m.tie_output = m.scale_embedding = true;
  m.validate();
  return m;
}

// Multi30k-like pairs of random pieces (source 6-30, target within +-4 of
// it), batched by the trainer's own pipeline (plan_sorted_batches: sorted by
// length, at most batch_tokens padded cells; make_batch: sos/eos and padding);
// `count` of the batches, spread over the length range.
std::vector<nmt::data::Batch> make_batches(int64_t batch_tokens, int64_t count) {
  torch::manual_seed(11);
  const int64_t pairs = count * batch_tokens / 16 * 3;
  const auto src_len = torch::randint(6, 31, {pairs}, torch::kLong);
  const auto tgt_len = (src_len + torch::randint(-4, 5, {pairs}, torch::kLong)).clamp_min(3);
  auto random_ids = [](int64_t len) {
    const auto ids = torch::randint(4, kVocab, {len}, torch::kInt);
    return std::vector<int32_t>(ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + len);
  };
  std::vector<std::vector<int32_t>> src, tgt;
  for (int64_t i = 0; i < pairs; ++i) {
    src.push_back(random_ids(src_len[i].item<int64_t>()));
    tgt.push_back(random_ids(tgt_len[i].item<int64_t>()));
  }
  const auto corpus = nmt::data::CorpusMix::of(nmt::data::EncodedCorpus::from_vectors(src, tgt));
  const auto plan = nmt::data::plan_sorted_batches(*corpus, batch_tokens);
  std::vector<nmt::data::Batch> batches;
  const int64_t stride = std::max<int64_t>(1, plan.size() / count);
  for (int64_t b = stride / 2; b < plan.size() && static_cast<int64_t>(batches.size()) < count; b += stride) {
    batches.push_back(nmt::data::make_batch(*corpus, plan.pairs.data() + plan.starts[b],
                                            plan.starts[b + 1] - plan.starts[b], nmt::data::SpecialIds{}));
  }
  return batches;
}

void save_for_python(const std::vector<nmt::data::Batch>& batches, const std::string& path) {
  c10::impl::GenericList list(c10::AnyType::get());
  for (const auto& b : batches) list.push_back(c10::ivalue::Tuple::create({b.src, b.tgt_in, b.gold}));
  const auto bytes = torch::pickle_save(c10::IValue(list));
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct Rate {
  double tokens_per_s = 0;
  std::string threads;
};

std::string describe(const nmt::ThreadPlan& plan) {
  return std::to_string(plan.aten) + " ATen + " + std::to_string(plan.blas) + " OpenBLAS";
}

Rate run_ours(const Shape& shape, nmt::Precision precision, const std::vector<nmt::data::Batch>& batches,
              int threads, int warmup, int steps, bool profile) {
  const auto plan = nmt::configure_cpu_threads(threads, precision);
  torch::manual_seed(1);
  nmt::model::Transformer model(model_config(shape));
  nmt::model::init_weights_like_reference(*model);
  model->train();
  torch::optim::Adam adam(model->unique_parameters(), torch::optim::AdamOptions(1e-4).betas({0.9, 0.98}).eps(1e-9));
  nmt::train::StepSettings settings;
  settings.precision = precision;
  auto train_step = [&](const nmt::data::Batch& batch) {
    adam.zero_grad();
    nmt::train::forward_backward(*model, batch, static_cast<double>(batch.tgt_tokens), settings);
    torch::nn::utils::clip_grad_norm_(model->unique_parameters(), 1.0);
    adam.step();
  };
  int64_t tokens = 0;
  double seconds = 0;
  for (int i = 0; i < warmup + steps; ++i) {
    const auto& batch = batches[static_cast<size_t>(i) % batches.size()];
    const auto start = std::chrono::steady_clock::now();
    train_step(batch);
    if (i < warmup) continue;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    tokens += batch.tgt_tokens;
  }
  if (profile) {
    std::printf("\nProfile of ours, %s, %s, %d steps:\n", shape.name.c_str(), nmt::precision_name(precision), steps);
    nmt::bench::print_op_profile([&] {
      for (int i = 0; i < steps; ++i) train_step(batches[static_cast<size_t>(i) % batches.size()]);
    }, 18);
  }
  return {tokens / seconds, describe(plan)};
}

Rate run_peer(const std::string& python, const std::string& script, const std::string& batches_path,
              const Shape& shape, nmt::Precision precision, const nmt::ThreadPlan& plan, int warmup, int steps) {
  std::ostringstream cmd;
  cmd << "OPENBLAS_NUM_THREADS=" << plan.blas << " " << python << " " << script << " --batches " << batches_path
      << " --vocab " << kVocab << " --d-model " << shape.d_model << " --heads " << shape.heads << " --ffn "
      << shape.ffn << " --layers " << shape.layers << " --precision " << nmt::precision_name(precision)
      << " --threads " << plan.aten << " --warmup " << warmup << " --steps " << steps;
  FILE* pipe = ::popen(cmd.str().c_str(), "r");
  if (!pipe) throw nmt::Error("Cannot start the Python peer: " + cmd.str(), nmt::kExitOther);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  if (::pclose(pipe) != 0 || out.empty()) throw nmt::Error("The Python peer failed: " + cmd.str(), nmt::kExitOther);
  const auto last = out.substr(out.rfind('{'));
  return {nlohmann::json::parse(last).at("tokens_per_s").get<double>(), describe(plan)};
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(item);
  return items;
}

std::string default_peer_script(const char* argv0) {
  // The script sits in the source tree's bench/; the binary in build/.
  const auto beside = std::filesystem::path(argv0).parent_path() / ".." / "bench" / "pytorch_peer.py";
  return beside.lexically_normal().string();
}

int bench_main(int argc, char** argv) {
  CLI::App app{"Training speed of ours against a plain PyTorch peer, fp32 and bf16, side by side."};
  std::string shapes_text = "multi30k,base", precisions_text = "fp32,bf16", python = "/usr/bin/python3";
  std::string peer_script = default_peer_script(argv[0]);
  int64_t batch_tokens = 4096;
  int steps = 8, warmup = 2, threads = 0;
  bool no_peer = false, profile = false;
  app.add_option("--shapes", shapes_text, "Comma-separated: multi30k, base")->capture_default_str();
  app.add_option("--precisions", precisions_text, "Comma-separated: fp32, bf16")->capture_default_str();
  app.add_option("--batch-tokens", batch_tokens, "Padded target cells per batch")->capture_default_str();
  app.add_option("--steps", steps, "Timed steps per measurement")->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed steps first")->capture_default_str();
  app.add_option("--threads", threads, "Cores (0: all), split between ATen and OpenBLAS by our thread plan, "
                 "for ours and the peer alike")->capture_default_str();
  app.add_flag("--no-peer", no_peer, "Measure ours only");
  app.add_flag("--profile", profile, "Also print an operator profile of our steps (autograd profiler)");
  app.add_option("--python", python, "Python with torch")->capture_default_str();
  app.add_option("--peer-script", peer_script, "bench/pytorch_peer.py")->capture_default_str();
  app.parse(argc, argv);
  if (steps < 1 || warmup < 0 || batch_tokens < 64) throw nmt::UsageError("--steps, --warmup, --batch-tokens out of range.");

  const auto batches = make_batches(batch_tokens, std::max(steps + warmup, 4));
  const std::string batches_path =
      (std::filesystem::temp_directory_path() / ("train_speed_bench." + std::to_string(::getpid()) + ".pt")).string();
  save_for_python(batches, batches_path);
  const int cores = nmt::configure_cpu_threads(threads, nmt::Precision::kFp32).cores;
  int64_t targets = 0;
  for (const auto& b : batches) targets += b.tgt_tokens;
  std::printf("%zu batches of <= %lld padded cells (%lld target tokens on average), vocabulary %lld, %d cores; "
              "%d warm-up + %d timed steps each\n\n",
              batches.size(), static_cast<long long>(batch_tokens),
              static_cast<long long>(targets / static_cast<int64_t>(batches.size())), static_cast<long long>(kVocab),
              cores, warmup, steps);
  std::printf("| shape | precision | ours tok/s | ours threads | peer tok/s | peer threads | ours/peer |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto& name : split_list(shapes_text)) {
    if (!kShapes.count(name)) throw nmt::UsageError("--shapes: unknown shape '" + name + "' (multi30k, base).");
    const Shape& shape = kShapes.at(name);
    std::map<std::string, double> ours_by_precision;
    for (const auto& pname : split_list(precisions_text)) {
      const auto precision = nmt::choose_precision(pname, torch::kCPU).precision;
      const Rate ours = run_ours(shape, precision, batches, threads, warmup, steps, profile);
      ours_by_precision[pname] = ours.tokens_per_s;
      Rate peer;
      if (!no_peer) {
        const auto plan = nmt::configure_cpu_threads(threads, precision);
        peer = run_peer(python, peer_script, batches_path, shape, precision, plan, warmup, steps);
      }
      std::printf("| %s | %s | %.0f | %s | %s | %s | %s |\n", name.c_str(), pname.c_str(), ours.tokens_per_s,
                  ours.threads.c_str(), no_peer ? "-" : std::to_string(static_cast<int>(peer.tokens_per_s)).c_str(),
                  no_peer ? "-" : peer.threads.c_str(),
                  no_peer ? "-" : (std::to_string(ours.tokens_per_s / peer.tokens_per_s).substr(0, 4) + "x").c_str());
      std::fflush(stdout);
    }
    if (ours_by_precision.count("fp32") && ours_by_precision.count("bf16")) {
      std::printf("| %s | ours bf16 / ours fp32 | %.2fx | | | | |\n", name.c_str(),
                  ours_by_precision["bf16"] / ours_by_precision["fp32"]);
    }
  }
  std::filesystem::remove(batches_path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  nmt::rerun_with_fitting_blas_kernels(argv);  // as the trainer runs
  return nmt::cli::run_main("train_speed_bench", [&] { return bench_main(argc, argv); });
}
