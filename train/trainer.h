// The training run behind `trainer` (docs/training.md):
// prepares vocabulary and data, trains with periodic validation and
// checkpoints, and resumes exactly. The Trainer owns the run's objects and
// hands each job to one of them (docs/architecture.md, "The training run").
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/optim/adam.h>

#include "data/batch_iterator.h"
#include "data/parallel_reader.h"
#include "data/training_data.h"
#include "distributed/communicator.h"
#include "distributed/gradient_sync.h"
#include "distributed/job_env.h"
#include "model/transformer.h"
#include "storage/checkpoint.h"
#include "storage/length_profile.h"
#include "storage/model_dir.h"
#include "train/checkpoint_manager.h"
#include "train/fine_tuning.h"
#include "train/interval_stats.h"
#include "train/lr_schedule.h"
#include "train/metrics_log.h"
#include "train/progress.h"
#include "train/run_schedule.h"
#include "train/run_state.h"
#include "train/train_step.h"
#include "train/validation.h"
#include "util/config.h"
#include "vocab/vocabularies.h"

namespace spdlog {
class logger;
}

namespace nmt::train {

struct TrainerOptions {
  std::string config_path;
  std::string out_dir;                 // default: runs/<config file stem>
  bool resume = false;
  std::vector<std::string> overrides;  // --set KEY=VALUE
  std::string init_state_dict;         // reference-format weights to start from
  std::string init_from;               // a finished run to fine-tune (train/fine_tuning.h)
  bool init_keep_optimizer = false;    // with init_from: its optimizer, schedule and step too
  bool progress_on_terminal = true;    // draw a live line when stderr is a TTY
  // This process's place in a data-parallel job (torchrun's environment or
  // trainer --nproc-per-node); none or a world of one: a plain process.
  std::optional<distributed::JobEnv> job;
};

struct TrainResult {
  int64_t step = 0;
  int64_t epoch = 0;
  bool interrupted = false;  // stopped by SIGINT/SIGTERM after saving
  std::string out_dir;
  std::string last_checkpoint;
  bool writer = true;  // rank 0 of a job (or a plain process): the one that wrote the output directory
};

// Reads the config file, applies overrides and validates (UsageError on failure).
Config resolve_config(const TrainerOptions& options);

TrainResult run_training(const TrainerOptions& options);

// Internals of one run; its methods are split by concern over trainer*.cpp.
class Trainer {
 public:
  Trainer(Config config, TrainerOptions options);
  TrainResult run();

 private:
  // trainer_setup.cpp
  void choose_device();
  void prepare_output();
  void prepare_data();
  // DIR/lengths.json from the training corpora (storage/length_profile.h).
  void write_length_profile();
  // The coverage check's threshold, learned on the validation set with the
  // search the translator will use (`choice`, else the final validation's),
  // added to DIR/lengths.json.
  void learn_coverage_threshold(const std::optional<storage::DecodingChoice>& choice);
  void build_model();
  void start_from_run();  // --init-from
  std::shared_ptr<spdlog::logger> make_logger() const;
  int cpu_threads_of_this_rank() const;
  std::string torchrun_run_id() const;  // "" when torchrun names no job
  bool restarted_by_torchrun() const;
  void mark_torchrun_job() const;

  // trainer_resume.cpp: checkpoints of the run and resuming from them.
  void restore_or_start();
  void restore(const storage::Checkpoint& checkpoint);
  void restore_state(const storage::Checkpoint& c, const std::string& origin);  // restore()'s body
  void apply_training_state(const nlohmann::json& state);  // run state, data position, learning rate
  nlohmann::json training_state(double elapsed_seconds) const;
  storage::Checkpoint snapshot() const;
  std::string save_checkpoint(bool best);

  // trainer.cpp: the loop and the optimizer step.
  struct StepStats {
    bool done = false, skipped = false;
    double loss_sum = 0, nll_sum = 0;
    double lr = 0;  // the rate the update applied
    int64_t tokens = 0, src_tokens = 0;
  };
  StepStats train_step();
  // The next batch of the job's order: built when `batch` is given (this
  // rank trains on it), only counted otherwise. False once the data is done.
  bool next_batch(data::Batch* batch, int64_t& src_tokens, int64_t& tgt_tokens);
  bool finished() const;
  void check_time_budget();
  void after_step(const StepStats& stats);
  void count_skipped_step();
  void report_progress(const StepStats& stats);
  void validate_and_checkpoint();
  bool validate();  // true: a new best score

  // trainer_dist.cpp: data-parallel jobs. Each is a no-op in a plain process.
  bool writer() const { return !comm_ || comm_->rank() == 0; }
  int rank() const { return comm_ ? comm_->rank() : 0; }
  int world_size() const { return comm_ ? comm_->size() : 1; }
  void join_job();
  // Runs `prepare` on rank 0 first, then on the first rank of every other
  // machine, then on the rest, so that files shared by ranks are made once.
  void prepare_in_turn(const std::function<void()>& prepare);
  void check_same_data_as_rank0();
  void share_start_state();  // rank 0's weights, optimizer and position on every rank
  bool agree_to_stop(bool stop);
  void sum_gradients(StepStats& stats);  // and the loss sums with them
  void leave_job();  // with the others, at the end (a last barrier)
  void leave_job_after_error(const std::string& error_message);

  // trainer_finish.cpp: after the last step, or on a clean stop.
  void finish_run();
  void release_training_memory();
  std::optional<storage::Checkpoint> write_average();
  // Validates `checkpoint` (named `file` in checkpoints/) with the final beam.
  nlohmann::json score_checkpoint(const std::string& file, const storage::Checkpoint& checkpoint);
  // The choice written to decoding.json; none when nothing was tuned.
  std::optional<storage::DecodingChoice> tune_decoding(const std::string& file, bool loaded);
  void report_time_share(double training_seconds, double final_seconds);

  Config config_;
  TrainerOptions options_;
  storage::ModelDirPaths paths_;
  FineTuningSource init_source_;  // where --init-from points; empty without it
  RunSchedule schedule_;  // when to log, validate, checkpoint and stop
  std::shared_ptr<spdlog::logger> log_;
  torch::Device device_{torch::kCPU};
  StepSettings step_settings_;  // device, precision, pad id, smoothing: fixed for the run

  vocab::Vocabularies vocabs_;
  data::TrainingData data_;
  storage::LengthProfile length_profile_;
  std::optional<data::BatchIterator> iterator_;
  std::optional<Validator> validator_;
  model::Transformer model_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::unique_ptr<LrSchedule> lr_schedule_;
  std::unique_ptr<CheckpointManager> checkpoints_;
  std::unique_ptr<MetricsLog> metrics_;
  std::unique_ptr<Progress> progress_;
  std::unique_ptr<distributed::Communicator> comm_;  // a data-parallel job's collectives
  std::unique_ptr<distributed::GradientSync> gradient_sync_;

  RunState state_;         // where the run stands; saved in checkpoints
  IntervalStats interval_;  // figures since the last log line
};

}  // namespace nmt::train
