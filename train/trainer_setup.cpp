// Setting a run up: configuration, output directory, vocabulary, data, model,
// optimizer; and the checkpoint side (snapshot, save, resume).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <ATen/CPUGeneratorImpl.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "data/language_pair.h"
#include "model/state_dict.h"
#include "train/optimizer_bytes.h"
#include "train/trainer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/threads.h"

namespace nmt::train {
namespace fs = std::filesystem;
namespace {

torch::Device device_for(const std::string& wanted) {
  const bool cuda = torch::cuda::is_available();
  if (wanted == "cuda" && !cuda) {
    throw UsageError("train.device is \"cuda\" but no CUDA device is available (use \"auto\" or \"cpu\").");
  }
  return (wanted != "cpu" && cuda) ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

std::vector<torch::Tensor> rng_states() {
  std::vector<torch::Tensor> states;
  auto cpu = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(cpu.mutex());
    states.push_back(cpu.get_state());
  }
  for (int64_t i = 0; torch::cuda::is_available() && i < static_cast<int64_t>(torch::cuda::device_count()); ++i) {
    auto gen = at::globalContext().defaultGenerator(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(i)));
    std::lock_guard<std::mutex> lock(gen.mutex());
    states.push_back(gen.get_state());
  }
  return states;
}

void restore_rng_states(const std::vector<torch::Tensor>& states) {
  if (states.empty()) return;
  auto cpu = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(cpu.mutex());
    cpu.set_state(states[0]);
  }
  for (size_t i = 1; i < states.size() && torch::cuda::is_available() &&
                     i <= static_cast<size_t>(torch::cuda::device_count());
       ++i) {
    auto gen = at::globalContext().defaultGenerator(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(i - 1)));
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(states[i]);
  }
}

}  // namespace

Config resolve_config(const TrainerOptions& options) {
  nlohmann::json j = read_json_file(options.config_path);
  for (const auto& assignment : options.overrides) apply_override(j, assignment);
  Config config = config_from_json(j, options.config_path);
  config.validate();
  return config;
}

TrainResult run_training(const TrainerOptions& options) {
  Config config = resolve_config(options);
  TrainerOptions resolved = options;
  if (resolved.out_dir.empty()) resolved.out_dir = "runs/" + fs::path(options.config_path).stem().string();
  return Trainer(std::move(config), std::move(resolved)).run();
}

Trainer::Trainer(Config config, TrainerOptions options)
    : config_(std::move(config)), options_(std::move(options)), paths_(options_.out_dir) {}

// Before joining a job: NCCL joins only where the model trains on CUDA.
void Trainer::choose_device() { device_ = device_for(config_.train.device); }

// Rank 0 (or a plain process) logs to the terminal and train.log; the other
// ranks of a job only say what goes wrong, on the terminal.
std::shared_ptr<spdlog::logger> Trainer::make_logger() const {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (writer()) sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(paths_.log));
  auto logger = std::make_shared<spdlog::logger>("trainer", sinks.begin(), sinks.end());
  logger->set_pattern(writer() ? "[%Y-%m-%d %H:%M:%S] [%l] %v"
                               : fmt::format("[%Y-%m-%d %H:%M:%S] [rank {}] [%l] %v", rank()));
  logger->set_level(writer() ? spdlog::level::info : spdlog::level::warn);
  logger->flush_on(spdlog::level::info);
  return logger;
}

// torchrun restarts failed workers (--max_restarts) with the same command
// line: they go on from the checkpoints of their own job, which the output
// directory names (run ids are torchrun's --rdzv_id; "none" names no job).
std::string Trainer::torchrun_run_id() const {
  const auto& job = options_.job;
  return job && job->run_id != "none" ? job->run_id : std::string();
}

bool Trainer::restarted_by_torchrun() const {
  if (!options_.job || options_.job->restart_count == 0 || torchrun_run_id().empty()) return false;
  std::ifstream in(paths_.root + "/torchrun_run_id");
  std::string id;
  return std::getline(in, id) && id == torchrun_run_id();
}

void Trainer::mark_torchrun_job() const {
  if (writer() && !torchrun_run_id().empty()) {
    write_file_atomically(paths_.root + "/torchrun_run_id", torchrun_run_id() + "\n");
  }
}

// train.threads counts a machine's cores (0: all of them); the ranks on one
// machine share them.
int Trainer::cpu_threads_of_this_rank() const {
  const int local_ranks = comm_ ? comm_->job().local_world_size : 1;
  if (local_ranks <= 1) return static_cast<int>(config_.train.threads);
  return std::max(1, cores_to_use(static_cast<int>(config_.train.threads)) / local_ranks);
}

void Trainer::prepare_output() {
  fs::create_directories(paths_.root);
  if (writer()) {
    fs::create_directories(paths_.checkpoints);
    const bool has_checkpoints = fs::exists(paths_.last) || !fs::is_empty(paths_.checkpoints);
    if (has_checkpoints && !options_.resume && restarted_by_torchrun()) options_.resume = true;
    if (has_checkpoints && !options_.resume) {
      throw UsageError("Output directory " + paths_.root +
                       " already holds checkpoints; pass --resume to continue that run or choose another --out.");
    }
    // The final validation's scores describe the checkpoints of a finished
    // run; a run that goes on will write new ones at its end.
    fs::remove(paths_.scores);
  }
  log_ = make_logger();
  if (writer() && options_.job && options_.job->restart_count > 0) {
    log_->info("restart {} of torchrun job {}{}", options_.job->restart_count, options_.job->run_id,
               options_.resume ? "; resuming from its checkpoints" : "");
  }
  mark_torchrun_job();
  progress_ = std::make_unique<Progress>(log_, writer() && options_.progress_on_terminal && ::isatty(2));
  if (comm_ && device_.is_cuda()) {  // one GPU per rank of a machine
    device_ = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(comm_->job().local_rank %
                                                                         torch::cuda::device_count()));
  }
  const PrecisionChoice precision = choose_precision(config_.train.precision, device_);
  const ThreadPlan threads = configure_cpu_threads(cpu_threads_of_this_rank(), precision.precision);
  log_->info("output directory {} | device {} | precision {} ({}) | {} cores ({} ATen, {} OpenBLAS threads){}",
             paths_.root, device_.str(), precision_name(precision.precision), precision.reason, threads.cores,
             threads.aten, threads.blas,
             comm_ ? fmt::format(" per rank | {} ranks: {}", world_size(), comm_->job().describe()) : std::string());

  prepare_in_turn([&] {
    vocabs_ = vocab::prepare_vocabularies(config_, paths_.root);
    config_.model.enc_voc_size = vocabs_.src->size();
    config_.model.dec_voc_size = vocabs_.tgt->size();
    config_.model.src_pad_idx = vocabs_.src->pad_id();
    config_.model.trg_pad_idx = vocabs_.tgt->pad_id();
    config_.model.trg_sos_idx = vocabs_.tgt->bos_id();
    config_.validate();
    data_ = data::prepare_training_data(config_, vocabs_, paths_.root);
  });
  step_settings_ = {config_.model.trg_pad_idx, config_.train.label_smoothing, device_, precision.precision};
  log_->info("training data: {}", data_.train->stats().summary());
  if (data_.valid) log_->info("validation data: {}", data_.valid->stats().summary());
  iterator_.emplace(data::make_train_iterator(data_, config_));
  valid_batches_ = data::make_valid_batches(data_, config_);
  log_->info("vocabulary {}{} pieces | {} training pairs, {} batches per epoch | {} validation batches",
             vocabs_.joint ? "joint " : "", config_.model.dec_voc_size, data_.train->size(),
             iterator_->batches_in_epoch(), valid_batches_.size());
  // The directory records its language pair, which the server answers for.
  const data::LanguagePair pair = data::language_pair(config_.data);
  config_.data.src_lang = pair.source;
  config_.data.tgt_lang = pair.target;
  check_same_data_as_rank0();
  if (writer()) write_file_atomically(paths_.config, config_to_json(config_).dump(2) + "\n");
}

void Trainer::build_model() {
  torch::manual_seed(static_cast<uint64_t>(config_.train.seed));
  model_ = model::Transformer(config_.model);
  model::init_weights_like_reference(*model_);
  // Rank 0 reads the starting weights and hands them to the others
  // (share_start_state), who need no copy of the file.
  if (!options_.init_state_dict.empty() && writer()) {
    model::load_state_dict(*model_, model::read_state_dict_file(options_.init_state_dict), options_.init_state_dict);
    log_->info("initial weights from {}", options_.init_state_dict);
  }
  model_->to(device_);
  const auto& t = config_.train;
  torch::optim::AdamOptions adam(t.lr);
  adam.betas({t.adam_beta1, t.adam_beta2}).eps(t.adam_eps).weight_decay(t.weight_decay);
  optimizer_ = std::make_unique<torch::optim::Adam>(model_->unique_parameters(), adam);
  schedule_ = std::make_unique<LrSchedule>(t, config_.model.d_model);
  // Averaging needs its checkpoints kept. Only rank 0 of a job writes them.
  if (writer()) {
    checkpoints_ = std::make_unique<CheckpointManager>(
        paths_, std::max(config_.checkpoint.keep_last, config_.checkpoint.average_last));
  }
  if (comm_) gradient_sync_ = std::make_unique<dist::GradientSync>(model_->unique_parameters());
  int64_t n = 0;
  for (const auto& p : model_->unique_parameters()) n += p.numel();
  log_->info("model: {} parameters, d_model {}, {} layers, {} heads", n, config_.model.d_model,
             config_.model.n_layers, config_.model.n_head);
}

// Rank 0 of a job reads the checkpoint; share_start_state() gives the others its state.
void Trainer::restore_or_start() {
  if (!writer()) return;
  std::optional<model::Checkpoint> checkpoint;
  if (options_.resume) {
    bool found_any = false;
    checkpoint = checkpoints_->load_newest_intact([&](const std::string& w) { log_->warn("{}", w); }, &found_any);
    if (!checkpoint && found_any) {
      throw DataError("Cannot resume: every checkpoint in " + paths_.checkpoints +
                      " is truncated or corrupt (see the warnings above); remove them to start afresh.");
    }
    if (!checkpoint) log_->warn("--resume: no checkpoint in {} yet; starting from scratch", paths_.checkpoints);
  }
  if (checkpoint) restore(*checkpoint);
  metrics_ = std::make_unique<MetricsLog>(paths_.metrics, paths_.root + "/training.svg",
                                          checkpoint ? step_ : -1);
}

void Trainer::restore(const model::Checkpoint& c) {
  const std::string origin = "checkpoint at step " + std::to_string(c.step()) + " in " + paths_.checkpoints;
  try {
    restore_state(c, origin);
  } catch (const nlohmann::json::exception& e) {
    throw DataError("Cannot resume: the " + origin + " has a damaged training state (" + e.what() +
                    "); remove it to resume from an older one.");
  }
}

void Trainer::restore_state(const model::Checkpoint& c, const std::string& origin) {
  ModelConfig trained = model_config_from_json(c.config.at("model"), origin);
  if (!same_architecture(trained, config_.model)) {
    throw DataError("Cannot resume: the " + origin +
                    " was trained with another model configuration; use the original config or a new --out.");
  }
  model::load_state_dict(*model_, c.weights, origin);
  load_optimizer_bytes(*optimizer_, c.optimizer, origin);
  apply_training_state(c.state);
  restore_rng_states(c.rng);
  last_saved_step_ = step_;
  log_->info("resumed from step {} (epoch {})", step_, iterator_->epoch() + 1);
}

void Trainer::apply_training_state(const nlohmann::json& s) {
  step_ = s.at("step");
  schedule_->restore(s.at("schedule"));
  iterator_->restore(data::iterator_state_from_json(s.at("iterator")));
  has_best_ = s.at("has_best");
  best_score_ = s.at("best_score");
  validations_without_improvement_ = s.at("validations_without_improvement");
  elapsed_before_ = s.value("elapsed_seconds", 0.0);  // absent in checkpoints written before train.max_minutes
  valid_seconds_ = s.value("valid_seconds", 0.0);
}

nlohmann::json Trainer::training_state() const {
  return {{"step", step_},
          {"epoch", iterator_->epoch()},
          {"iterator", data::iterator_state_to_json(iterator_->state())},
          {"schedule", schedule_->state()},
          {"has_best", has_best_},
          {"best_score", best_score_},
          {"validations_without_improvement", validations_without_improvement_},
          {"elapsed_seconds", elapsed_seconds()},
          {"valid_seconds", valid_seconds_}};
}

model::Checkpoint Trainer::snapshot() const {
  model::Checkpoint c;
  c.config = config_to_json(config_);
  c.weights = model::state_dict_of(*model_);
  c.optimizer = optimizer_bytes(*optimizer_);
  c.rng = rng_states();
  c.state = training_state();
  return c;
}

std::string Trainer::save_checkpoint(bool best) {
  std::string path = checkpoints_->save(snapshot(), best);
  last_saved_step_ = step_;
  progress_->clear();
  log_->info("saved checkpoint {}{}", path, best ? " (best so far)" : "");
  return path;
}

}  // namespace nmt::train
