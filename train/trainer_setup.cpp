// Setting a run up: configuration, output directory, vocabulary, data, model,
// optimizer.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "data/corpus_lengths.h"
#include "data/language_pair.h"
#include "data/language_tags.h"
#include "storage/optimizer_bytes.h"
#include "storage/state_dict.h"
#include "train/fine_tuning.h"
#include "train/trainer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/allocator.h"
#include "util/blas_kernels.h"
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

}  // namespace

Config resolve_config(const TrainerOptions& options) {
  nlohmann::json j = read_json_file(options.config_path);
  for (const auto& assignment : options.overrides) apply_override(j, assignment);
  if (!options.init_from.empty()) {
    if (!options.init_state_dict.empty()) {
      throw UsageError("--init-from and --init-state-dict both give starting weights; use one of them.");
    }
    j = fine_tuning_config(j, fine_tuning_source(options.init_from));
  } else if (options.init_keep_optimizer) {
    throw UsageError("--init-keep-optimizer goes with --init-from RUN_DIR.");
  }
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
    : config_(std::move(config)),
      options_(std::move(options)),
      paths_(options_.out_dir),
      init_source_(options_.init_from.empty() ? FineTuningSource{} : fine_tuning_source(options_.init_from)),
      schedule_(config_) {}

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
  const std::string blas = blas_kernels_description();
  log_->info("output directory {} | device {} | precision {} ({}) | {} cores ({} ATen, {} OpenBLAS threads{}) | {}{}",
             paths_.root, device_.str(), precision_name(precision.precision), precision.reason, threads.cores,
             threads.aten, threads.blas, blas.empty() ? "" : "; its kernels " + blas, allocator_name(),
             comm_ ? fmt::format(" per rank | {} ranks: {}", world_size(), comm_->job().describe()) : std::string());

  step_settings_.label_smoothing = config_.train.label_smoothing;
  step_settings_.device = device_;
  step_settings_.precision = precision.precision;
  prepare_data();
  if (writer()) write_file_atomically(paths_.config, config_to_json(config_).dump(2) + "\n");
}

// The vocabulary, the encoded corpora (made once for all ranks), the batch
// order and the validation set; the config learns the vocabulary's sizes and
// ids and the language pair.
void Trainer::prepare_data() {
  prepare_in_turn([&] {
    vocabs_ = options_.init_from.empty()
                  ? vocab::prepare_vocabularies(config_, paths_.root)
                  : vocab::adopt_vocabularies(init_source_.run_dir, paths_.root);
    config_.model.enc_voc_size = vocabs_.src->size();
    config_.model.dec_voc_size = vocabs_.tgt->size();
    config_.model.src_pad_idx = vocabs_.src->pad_id();
    config_.model.trg_pad_idx = vocabs_.tgt->pad_id();
    config_.model.trg_sos_idx = vocabs_.tgt->bos_id();
    config_.validate();
    data_ = data::prepare_training_data(config_, vocabs_, paths_.root);
  });
  step_settings_.pad_id = config_.model.trg_pad_idx;
  if (!vocabs_.cached_from.empty()) log_->info("vocabulary copied from the data cache {}", vocabs_.cached_from);
  if (vocabs_.seconds > 0) log_->info("vocabulary trained in {:.1f} s", vocabs_.seconds);
  for (const std::string& line : data::describe_training_data(data_)) log_->info("{}", line);
  iterator_.emplace(data::make_train_iterator(data_, config_));
  validator_.emplace(config_, data::make_valid_batches(data_, config_));
  log_->info("vocabulary {}{} pieces | {} training pairs, {}{} batches per epoch | {} validation batches",
             vocabs_.joint ? "joint " : "", config_.model.dec_voc_size, data_.train->pairs(),
             iterator_->windows_in_epoch() > 1 ? "about " : "", iterator_->batches_in_epoch(), validator_->batches());
  // The directory records its language pair, which the server answers for.
  const data::LanguagePair pair = data::language_pair(config_.data);
  config_.data.src_lang = pair.source;
  config_.data.tgt_lang = pair.target;
  if (const auto pairs = data::tagged_pairs(config_.data); !pairs.empty()) {
    std::string tags;
    for (const auto& p : pairs) tags += (tags.empty() ? "" : ", ") + p.source + "->" + p.target + " " + p.tag;
    log_->info("one model for {} pairs, each asked for by its target language's tag: {}", pairs.size(), tags);
  }
  check_same_data_as_rank0();
  if (writer()) write_length_profile();
}

void Trainer::write_length_profile() {
  std::vector<const data::EncodedCorpus*> corpora;
  for (size_t c = 0; c < data_.train->size(); ++c) corpora.push_back(&data_.train->corpus(c));
  length_profile_ = data::corpus_length_profile(corpora, vocabs_);
  storage::write_length_profile(paths_.lengths, length_profile_);
  const auto& p = length_profile_;
  log_->info("trained lengths: source median {:.0f}, p99 {:.0f}, max {:.0f} tokens; target/source ratio {:.2f}-{:.2f} "
             "(p1-p99); the translator gives the model pieces of at most {} tokens ({})",
             p.source.median, p.source.p99, p.source.max, p.ratio.p1, p.ratio.p99, p.max_piece_tokens(), paths_.lengths);
}

void Trainer::build_model() {
  torch::manual_seed(static_cast<uint64_t>(config_.train.seed));
  model_ = model::Transformer(config_.model);
  model::init_weights_like_reference(*model_);
  // Rank 0 reads the starting weights and hands them to the others
  // (share_start_state), who need no copy of the file.
  if (!options_.init_state_dict.empty() && writer()) {
    storage::load_state_dict(*model_, storage::read_state_dict_file(options_.init_state_dict),
                             options_.init_state_dict);
    log_->info("initial weights from {}", options_.init_state_dict);
  }
  model_->to(device_);
  const auto& t = config_.train;
  torch::optim::AdamOptions adam(t.lr);
  adam.betas({t.adam_beta1, t.adam_beta2}).eps(t.adam_eps).weight_decay(t.weight_decay);
  optimizer_ = std::make_unique<torch::optim::Adam>(model_->unique_parameters(), adam);
  lr_schedule_ = std::make_unique<LrSchedule>(t, config_.model.d_model);
  // Averaging needs its checkpoints kept. Only rank 0 of a job writes them.
  if (writer()) {
    checkpoints_ = std::make_unique<CheckpointManager>(
        paths_, std::max(config_.checkpoint.keep_last, config_.checkpoint.average_last));
  }
  start_from_run();
  if (comm_) gradient_sync_ = std::make_unique<distributed::GradientSync>(model_->unique_parameters());
  int64_t n = 0;
  for (const auto& p : model_->unique_parameters()) n += p.numel();
  log_->info("model: {} parameters, d_model {}, {} layers, {} heads", n, config_.model.d_model,
             config_.model.n_layers, config_.model.n_head);
}

// Rank 0 reads the run's checkpoint; share_start_state() gives the others
// its weights (and, when kept, its optimizer and step).
void Trainer::start_from_run() {
  if (options_.init_from.empty() || !writer()) return;
  const FineTuningStart start = read_fine_tuning_start(init_source_, options_.init_keep_optimizer);
  storage::load_state_dict(*model_, start.checkpoint.weights, start.path);
  if (options_.init_keep_optimizer) {
    storage::load_optimizer_bytes(*optimizer_, start.checkpoint.optimizer, start.path);
    lr_schedule_->restore(start.checkpoint.state.at("schedule"));
    state_.step = start.checkpoint.step();
  }
  log_->info("fine-tuning the run {}: weights from {} ({}), {}", init_source_.run_dir, start.path, start.why,
             options_.init_keep_optimizer ? fmt::format("its optimizer and schedule at step {}", state_.step)
                                          : std::string("a fresh optimizer and schedule"));
}

}  // namespace nmt::train
