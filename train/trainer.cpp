// The training loop: optimizer steps over accumulated batches, logging,
// validation, checkpoints, early stopping and clean stops on signals.
#include "train/trainer.h"

#include <chrono>
#include <cmath>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "data/parallel_reader.h"
#include "decode/translation.h"
#include "eval/bleu.h"
#include "train/train_step.h"
#include "train/validation.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace nmt::train {

TrainResult Trainer::run() {
  install_stop_signal_handlers();
  choose_device();
  join_job();
  bool stopped_by_another_rank = false;  // a signal that reached another rank of the job
  std::string last_checkpoint;
  try {
    prepare_output();
    build_model();
    restore_or_start();
    share_start_state();
    model_->train();
    started_ = std::chrono::steady_clock::now();
    check_time_budget();  // a resumed run may have spent it already
    while (true) {
      const bool finished_here = finished();
      if (agree_to_stop(finished_here)) {
        stopped_by_another_rank = !finished_here;
        break;
      }
      auto started = std::chrono::steady_clock::now();
      StepStats stats = train_step();
      interval_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (stats.done) break;
      after_step(stats);
    }
    progress_->clear();
    if (writer() && step_ != last_saved_step_) last_checkpoint = save_checkpoint(false);
  } catch (const std::exception& e) {
    leave_job_after_error(e.what());
    throw;
  }
  leave_job();
  TrainResult result;
  result.writer = writer();
  result.interrupted = stop_requested() || stopped_by_another_rank;
  result.last_checkpoint = last_checkpoint;
  result.step = step_;
  result.epoch = iterator_->epoch();
  result.out_dir = paths_.root;
  if (!writer()) return result;
  if (result.interrupted) {
    log_->info("stopped by {} at step {}; resume with --resume",
               stop_requested() ? fmt::format("signal {}", stop_signal_number()) : std::string("another rank's signal"),
               step_);
  } else {
    log_->info("training finished at step {}{}", step_,
               early_stopped_ ? " (early stop)"
               : budget_spent_ ? fmt::format(" (time budget of {} minutes used)", config_.train.max_minutes)
                               : std::string());
  }
  finish_run();
  metrics_->update_plot();
  return result;
}

int64_t Trainer::total_steps() const {
  if (config_.train.epochs == 0) return config_.train.max_steps;
  const int64_t batches = iterator_->batches_in_epoch() * config_.train.epochs;
  const int64_t per_step = config_.train.accum_steps * world_size();
  const int64_t by_epochs = (batches + per_step - 1) / per_step;
  return config_.train.max_steps > 0 ? std::min(by_epochs, config_.train.max_steps) : by_epochs;
}

double Trainer::elapsed_seconds() const {
  return elapsed_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

bool Trainer::out_of_time() const {
  return config_.train.max_minutes > 0 && elapsed_seconds() >= config_.train.max_minutes * 60.0;
}

// Rank 0's clock decides for a whole job (the others learn it from agree_to_stop).
void Trainer::check_time_budget() {
  if (writer() && !budget_spent_ && out_of_time()) budget_spent_ = true;
}

bool Trainer::finished() const {
  if (stop_requested() || early_stopped_ || budget_spent_) return true;
  return config_.train.max_steps > 0 && step_ >= config_.train.max_steps;
}

bool Trainer::next_batch(data::Batch* batch, int64_t& src_tokens, int64_t& tgt_tokens) {
  while (!(batch ? iterator_->next(*batch) : iterator_->skip(src_tokens, tgt_tokens))) {
    // epochs 0 means no epoch limit (max_steps then ends the run).
    if (config_.train.epochs > 0 && iterator_->epoch() + 1 >= config_.train.epochs) return false;
    iterator_->start_epoch(iterator_->epoch() + 1);
  }
  if (batch) {
    src_tokens = batch->src_tokens;
    tgt_tokens = batch->tgt_tokens;
  }
  return true;
}

namespace {

// Dropout's masks depend on (seed, step, place of the batch in the step)
// alone, so that N ranks draw what one process with N-fold accumulation draws.
uint64_t dropout_seed(int64_t seed, int64_t step, int64_t slot) {
  uint64_t z = (static_cast<uint64_t>(seed) * 0x9e3779b97f4a7c15ULL) ^ (static_cast<uint64_t>(step) << 20) ^
               static_cast<uint64_t>(slot);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

// One optimizer step over the job's next accum_steps x world_size batches:
// this rank trains on its accum_steps of them (slots rank * accum_steps on)
// and counts the others' tokens, so that every rank divides by the step's
// global token count without asking; a rank whose share the data no longer
// fills takes part with nothing.
Trainer::StepStats Trainer::train_step() {
  StepStats stats;
  const int64_t accum = config_.train.accum_steps;
  std::vector<std::pair<int64_t, data::Batch>> mine;  // (slot in the step, batch)
  int64_t slots = 0;
  for (; slots < accum * world_size(); ++slots) {
    const bool own = slots / accum == rank();
    data::Batch b;
    int64_t src_tokens = 0, tgt_tokens = 0;
    if (!next_batch(own ? &b : nullptr, src_tokens, tgt_tokens)) break;
    stats.tokens += tgt_tokens;
    stats.src_tokens += src_tokens;
    if (own) mine.emplace_back(slots, std::move(b));
  }
  if (slots == 0) {
    stats.done = true;
    return stats;
  }
  optimizer_->zero_grad();
  // One loss over every accumulated token: each batch contributes its sum
  // divided by the step's token count, so accumulation equals one big batch.
  const double denominator = static_cast<double>(std::max<int64_t>(stats.tokens, 1));
  torch::Tensor loss_sum = torch::zeros({}, torch::kDouble), nll_sum = torch::zeros({}, torch::kDouble);
  for (const auto& [slot, b] : mine) {
    torch::manual_seed(dropout_seed(config_.train.seed, step_ + 1, slot));
    const BatchLoss loss = forward_backward(*model_, b, denominator, step_settings_);
    loss_sum += loss.smoothed_sum.to(torch::kCPU, torch::kDouble);
    nll_sum += loss.nll_sum.to(torch::kCPU, torch::kDouble);
  }
  stats.loss_sum = loss_sum.item<double>();
  stats.nll_sum = nll_sum.item<double>();
  sum_gradients(stats);
  if (!std::isfinite(stats.loss_sum)) {
    stats.skipped = true;
    optimizer_->zero_grad();
    return stats;
  }
  if (config_.train.clip > 0) torch::nn::utils::clip_grad_norm_(model_->unique_parameters(), config_.train.clip);
  const double lr = schedule_->lr_at(step_ + 1);
  for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  optimizer_->step();
  ++step_;
  return stats;
}

void Trainer::after_step(const StepStats& stats) {
  check_time_budget();
  if (stats.skipped) {
    count_skipped_step();
    return;
  }
  bad_steps_in_a_row_ = 0;
  report_progress(stats);
  validate_and_checkpoint();
}

// A non-finite loss skips the update; too many in a row end the run (the last
// good checkpoint stays on disk).
void Trainer::count_skipped_step() {
  progress_->clear();
  log_->warn("non-finite loss at step {}; update skipped", step_ + 1);
  if (++bad_steps_in_a_row_ >= config_.train.max_bad_steps) {
    throw Error("The loss was not finite for " + std::to_string(bad_steps_in_a_row_) +
                    " steps in a row after step " + std::to_string(step_) + "; stopping. The last good checkpoint " +
                    "is in " + paths_.checkpoints + "; lower train.lr or check the data.",
                kExitOther);
  }
}

// Live progress every step; a log line and a metrics.jsonl record every
// train.log_every_steps, averaged over the steps since the previous one.
void Trainer::report_progress(const StepStats& stats) {
  if (!writer()) return;
  ++interval_steps_;
  interval_loss_ += stats.loss_sum;
  interval_tokens_ += stats.tokens;
  interval_all_tokens_ += stats.tokens + stats.src_tokens;
  const bool log_now = step_ % config_.train.log_every_steps == 0;
  ProgressSnapshot snap;
  snap.step = step_;
  snap.total_steps = total_steps();
  snap.epoch = iterator_->epoch();
  snap.loss = interval_loss_ / std::max<int64_t>(interval_tokens_, 1);
  snap.lr = schedule_->lr_at(step_);
  snap.tokens_per_s = interval_seconds_ > 0 ? interval_tokens_ / interval_seconds_ : 0;
  if (config_.train.max_minutes > 0) {
    snap.seconds_left = std::max(0.0, config_.train.max_minutes * 60.0 - elapsed_seconds());
  }
  progress_->update(snap, log_now);
  if (!log_now) return;
  metrics_->write({{"type", "train"},
                   {"step", step_},
                   {"epoch", snap.epoch + 1},
                   {"loss", snap.loss},
                   {"lr", snap.lr},
                   {"tokens_per_s", snap.tokens_per_s},
                   {"src_tgt_tokens_per_s", interval_all_tokens_ / std::max(interval_seconds_, 1e-9)},
                   {"step_ms", 1000.0 * interval_seconds_ / std::max<int64_t>(interval_steps_, 1)},
                   {"ranks", world_size()},
                   {"allreduce_ms_per_step",
                    1000.0 * interval_allreduce_seconds_ / std::max<int64_t>(interval_steps_, 1)}});
  interval_allreduce_seconds_ = 0;
  interval_steps_ = 0;
  interval_loss_ = 0;
  interval_tokens_ = interval_all_tokens_ = 0;
  interval_seconds_ = 0;
}

// Validation every valid.every_steps and after the last step; a checkpoint
// every checkpoint.every_steps and whenever validation found a new best.
void Trainer::validate_and_checkpoint() {
  if (!writer()) return;
  const bool last = finished() && !stop_requested();
  bool best = false;
  if (!valid_batches_.empty() && (step_ % config_.valid.every_steps == 0 || last)) {
    const bool had_best = has_best_;
    const double before = best_score_;
    validate();
    best = has_best_ && (!had_best || best_score_ > before);
  }
  if (step_ % config_.checkpoint.every_steps == 0 || best) save_checkpoint(best);
}

void Trainer::validate() {
  const auto started = std::chrono::steady_clock::now();
  model_->eval();
  ValidationResult v = run_validation(*model_, valid_batches_, config_, device_, step_settings_.precision);
  nlohmann::json line = {{"type", "valid"},
                         {"step", step_},
                         {"epoch", iterator_->epoch() + 1},
                         {"valid_loss", v.loss},
                         {"valid_ppl", v.ppl}};
  double score = -v.loss;
  if (config_.valid.bleu) {
    v.bleu = decode_bleu(config_.valid.beam);
    line["valid_bleu"] = v.bleu;
    score = v.bleu;
  }
  model_->train();
  schedule_->on_validation(v.loss);
  if (!has_best_ || score > best_score_) {
    has_best_ = true;
    best_score_ = score;
    validations_without_improvement_ = 0;
  } else if (config_.valid.early_stop_patience > 0 &&
             ++validations_without_improvement_ >= config_.valid.early_stop_patience) {
    early_stopped_ = true;
  }
  valid_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  metrics_->write(line);
  metrics_->update_plot();
  progress_->clear();
  log_->info("validation at step {}: loss {:.4f} ppl {:.2f}{}", step_, v.loss, v.ppl,
             config_.valid.bleu ? fmt::format(" BLEU {:.2f}", v.bleu) : std::string());
}

}  // namespace nmt::train

namespace nmt::train {

double Trainer::decode_bleu(int64_t beam) {
  if (!valid_lines_) {
    valid_lines_ = data::read_parallel_lines(config_.data.valid_src, config_.data.valid_tgt);
    const auto limit = static_cast<size_t>(config_.valid.max_sentences);
    if (limit > 0 && valid_lines_->src.size() > limit) {
      valid_lines_->src.resize(limit);
      valid_lines_->ref.resize(limit);
    }
  }
  decode::TranslatorOptions options;
  options.search.beam = beam;
  options.search.length_penalty = config_.valid.length_penalty;
  options.batch_size = 64;
  options.precision = step_settings_.precision;
  decode::Translator translator(model_, vocabs_, options);
  auto results = translator.translate(valid_lines_->src);
  eval::BleuStats stats;
  for (size_t i = 0; i < results.size(); ++i) {
    stats.add(results[i].texts.empty() ? std::string() : results[i].texts[0], valid_lines_->ref[i]);
  }
  return eval::compute_bleu(stats).score;
}

}  // namespace nmt::train
