// The training loop: optimizer steps over accumulated batches, logging,
// validation, checkpoints, early stopping and clean stops on signals.
#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "util/allocator.h"
#include "util/error.h"
#include "util/large_block_cache.h"
#include "util/proc_status.h"
#include "util/random.h"
#include "util/stop_signal.h"

namespace nmt::train {

TrainResult Trainer::run() {
  install_stop_signal_handlers();
  choose_device();
  // Large tensors from a cache of their own, so that memory stays flat (util/allocator.h).
  configure_training_memory();
  join_job();
  bool stopped_by_another_rank = false;  // a signal that reached another rank of the job
  std::string last_checkpoint;
  try {
    prepare_output();
    build_model();
    restore_or_start();
    share_start_state();
    model_->train();
    state_.start_clock();
    check_time_budget();  // a resumed run may have spent it already
    while (true) {
      const bool finished_here = finished();
      if (agree_to_stop(finished_here)) {
        stopped_by_another_rank = !finished_here;
        break;
      }
      auto started = std::chrono::steady_clock::now();
      StepStats stats = train_step();
      interval_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (stats.done) break;
      after_step(stats);
    }
    progress_->clear();
    if (writer() && state_.step != state_.last_saved_step) last_checkpoint = save_checkpoint(false);
  } catch (const std::exception& e) {
    leave_job_after_error(e.what());
    throw;
  }
  leave_job();
  TrainResult result;
  result.writer = writer();
  result.interrupted = stop_requested() || stopped_by_another_rank;
  result.last_checkpoint = last_checkpoint;
  result.step = state_.step;
  result.epoch = iterator_->epoch();
  result.out_dir = paths_.root;
  if (!writer()) return result;
  if (result.interrupted) {
    log_->info("stopped by {} at step {}; resume with --resume",
               stop_requested() ? fmt::format("signal {}", stop_signal_number()) : std::string("another rank's signal"),
               state_.step);
  } else {
    log_->info("training finished at step {}{}", state_.step,
               state_.early_stopped  ? " (early stop)"
               : state_.budget_spent ? fmt::format(" (time budget of {} minutes used)", config_.train.max_minutes)
               : schedule_.tokens_spent(state_)
                   ? fmt::format(" (budget of {} target tokens reached: {} processed)", config_.train.max_target_tokens,
                                 state_.target_tokens)
                   : std::string());
  }
  finish_run();
  metrics_->update_plot();
  return result;
}

// Rank 0's clock decides for a whole job (the others learn it from agree_to_stop).
void Trainer::check_time_budget() {
  if (writer()) schedule_.check_time_budget(state_);
}

bool Trainer::finished() const { return schedule_.finished(state_, stop_requested()); }

bool Trainer::next_batch(data::Batch* batch, int64_t& src_tokens, int64_t& tgt_tokens) {
  while (!(batch ? iterator_->next(*batch) : iterator_->skip(src_tokens, tgt_tokens))) {
    if (!schedule_.may_start_epoch(iterator_->epoch() + 1)) return false;
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
  return mix64((static_cast<uint64_t>(seed) * kGoldenGamma) ^ (static_cast<uint64_t>(step) << 20) ^
               static_cast<uint64_t>(slot));
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
    torch::manual_seed(dropout_seed(config_.train.seed, state_.step + 1, slot));
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
  stats.lr = lr_schedule_->lr_at(state_.step + 1, budget_spent(config_.train, state_.step, state_.target_tokens));
  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(stats.lr);
  optimizer_->step();
  ++state_.step;
  return stats;
}

void Trainer::after_step(const StepStats& stats) {
  state_.target_tokens += stats.tokens;  // every rank's share: the same count on each rank
  check_time_budget();
  if (stats.skipped) {
    count_skipped_step();
    return;
  }
  state_.bad_steps_in_a_row = 0;
  report_progress(stats);
  validate_and_checkpoint();
}

// A non-finite loss skips the update; too many in a row end the run (the last
// good checkpoint stays on disk).
void Trainer::count_skipped_step() {
  progress_->clear();
  log_->warn("non-finite loss at step {}; update skipped", state_.step + 1);
  if (++state_.bad_steps_in_a_row >= config_.train.max_bad_steps) {
    throw Error("The loss was not finite for " + std::to_string(state_.bad_steps_in_a_row) +
                    " steps in a row after step " + std::to_string(state_.step) +
                    "; stopping. The last good checkpoint is in " + paths_.checkpoints +
                    "; lower train.lr or check the data.",
                kExitOther);
  }
}

// Live progress every step; a log line and a metrics.jsonl record every
// train.log_every_steps, averaged over the steps since the previous one.
void Trainer::report_progress(const StepStats& stats) {
  if (!writer()) return;
  interval_.add_step(stats.loss_sum, stats.tokens, stats.src_tokens);
  const bool log_now = schedule_.log_now(state_.step);
  ProgressSnapshot snap;
  snap.step = state_.step;
  snap.total_steps = schedule_.total_steps(iterator_->batches_in_epoch(), world_size());
  if (config_.train.max_target_tokens > 0 && state_.target_tokens > 0) {  // the steps the budget holds, at this rate
    const auto by_tokens = static_cast<int64_t>(std::ceil(static_cast<double>(state_.step) *
                                                          static_cast<double>(config_.train.max_target_tokens) /
                                                          static_cast<double>(state_.target_tokens)));
    snap.total_steps = snap.total_steps > 0 ? std::min(snap.total_steps, by_tokens) : by_tokens;
  }
  snap.epoch = iterator_->epoch();
  snap.loss = interval_.loss();
  snap.lr = stats.lr;
  snap.tokens_per_s = interval_.tokens_per_s();
  snap.seconds_left = schedule_.seconds_left(state_);
  snap.target_tokens = state_.target_tokens;
  snap.max_target_tokens = config_.train.max_target_tokens;
  progress_->update(snap, log_now);
  if (!log_now) return;
  nlohmann::json line = {{"type", "train"},
                         {"step", state_.step},
                         {"epoch", snap.epoch + 1},
                         // Target tokens the run's steps have taken so far (what train.max_target_tokens counts).
                         {"target_tokens", state_.target_tokens},
                         {"loss", snap.loss},
                         {"lr", snap.lr},
                         {"tokens_per_s", snap.tokens_per_s},
                         {"src_tgt_tokens_per_s", interval_.all_tokens_per_s()},
                         {"step_ms", interval_.ms_per_step(interval_.seconds)},
                         {"ranks", world_size()},
                         // Pairs of each corpus (data.corpora's order) the job has trained on so far.
                         {"pairs_seen", iterator_->pairs_seen()},
                         {"allreduce_ms_per_step", interval_.ms_per_step(interval_.allreduce_seconds)},
                         // The process's memory now and at its peak (VmRSS, VmHWM), to see it stay flat.
                         {"rss_mib", proc_status_mib("VmRSS")},
                         {"peak_rss_mib", proc_status_mib("VmHWM")}};
  // Where it goes: the allocator's live blocks and the pages it holds (jemalloc's
  // counts, small tensors and everything else), and the large tensors' cache
  // (util/large_block_cache.h); the rest is code and libraries.
  if (const AllocatorStats heap = allocator_stats(); heap.resident > 0) {
    line["allocated_mib"] = static_cast<double>(heap.allocated) / (1 << 20);
    line["allocator_resident_mib"] = static_cast<double>(heap.resident) / (1 << 20);
  }
  if (large_block_cache_installed()) {
    const LargeBlockCacheStats blocks = large_block_cache_stats();
    line["large_blocks_mib"] = static_cast<double>(blocks.held) / (1 << 20);
    line["large_blocks_live_peak_mib"] = static_cast<double>(blocks.high_water) / (1 << 20);
    line["large_blocks_mapped"] = blocks.mapped;
    line["large_blocks_resized"] = blocks.resized;
    line["large_blocks_reused"] = blocks.reused;
  }
  metrics_->write(line);
  interval_ = IntervalStats{};
}

void Trainer::validate_and_checkpoint() {
  if (!writer()) return;
  const bool last = finished() && !stop_requested();
  const bool validating = !validator_->empty() && schedule_.validate_now(state_.step, last);
  if (!validating && !schedule_.checkpoint_now(state_.step, false)) return;
  // A validation's decoding and a checkpoint's serialised bytes are one-off
  // peaks: they allocate apart from the training step's blocks, and their
  // pages go back to the system when they end (util/allocator.h).
  SideArena side_arena;
  const bool best = validating && validate();
  if (schedule_.checkpoint_now(state_.step, best)) save_checkpoint(best);
}

bool Trainer::validate() {
  const auto started = std::chrono::steady_clock::now();
  model_->eval();
  const ValidationResult v =
      validator_->validate(model_, vocabs_, device_, step_settings_.precision, config_.valid.beam);
  model_->train();
  nlohmann::json line = {{"type", "valid"},
                         {"step", state_.step},
                         {"epoch", iterator_->epoch() + 1},
                         {"target_tokens", state_.target_tokens},
                         {"valid_loss", v.loss},
                         {"valid_ppl", v.ppl}};
  if (config_.valid.bleu) line["valid_bleu"] = v.bleu;
  lr_schedule_->on_validation(v.loss);
  const bool best = state_.record_validation(v.score, config_.valid.early_stop_patience);
  state_.valid_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  metrics_->write(line);
  metrics_->update_plot();
  progress_->clear();
  log_->info("validation at step {}: loss {:.4f} ppl {:.2f}{}", state_.step, v.loss, v.ppl,
             config_.valid.bleu ? fmt::format(" BLEU {:.2f}", v.bleu) : std::string());
  return best;
}

}  // namespace nmt::train
