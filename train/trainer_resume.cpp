// A run's checkpoints: what a snapshot holds (weights, optimizer, random
// generators, the run's state, the data position, the learning rate), saving
// one, and resuming from the newest intact one.
#include <ATen/CPUGeneratorImpl.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "storage/optimizer_bytes.h"
#include "storage/state_dict.h"
#include "train/trainer.h"
#include "util/error.h"

namespace nmt::train {
namespace {

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

// Rank 0 of a job reads the checkpoint; share_start_state() gives the others its state.
void Trainer::restore_or_start() {
  if (!writer()) return;
  std::optional<storage::Checkpoint> checkpoint;
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
                                          checkpoint ? state_.step : -1);
}

void Trainer::restore(const storage::Checkpoint& c) {
  const std::string origin = "checkpoint at step " + std::to_string(c.step()) + " in " + paths_.checkpoints;
  try {
    restore_state(c, origin);
  } catch (const nlohmann::json::exception& e) {
    throw DataError("Cannot resume: the " + origin + " has a damaged training state (" + e.what() +
                    "); remove it to resume from an older one.");
  }
}

void Trainer::restore_state(const storage::Checkpoint& c, const std::string& origin) {
  ModelConfig trained = model_config_from_json(c.config.at("model"), origin);
  if (!same_architecture(trained, config_.model)) {
    throw DataError("Cannot resume: the " + origin +
                    " was trained with another model configuration; use the original config or a new --out.");
  }
  storage::load_state_dict(*model_, c.weights, origin);
  storage::load_optimizer_bytes(*optimizer_, c.optimizer, origin);
  apply_training_state(c.state);
  restore_rng_states(c.rng);
  state_.last_saved_step = state_.step;
  log_->info("resumed from step {} (epoch {})", state_.step, iterator_->epoch() + 1);
}

// The run's state, the learning-rate schedule and the position in the data,
// as training_state() wrote them.
void Trainer::apply_training_state(const nlohmann::json& s) {
  state_.restore(s);
  lr_schedule_->restore(s.at("schedule"));
  iterator_->restore(data::iterator_state_from_json(s.at("iterator")));
}

nlohmann::json Trainer::training_state(double elapsed_seconds) const {
  nlohmann::json s = state_.to_json(elapsed_seconds);
  s["epoch"] = iterator_->epoch();
  s["iterator"] = data::iterator_state_to_json(iterator_->state());
  s["schedule"] = lr_schedule_->state();
  return s;
}

storage::Checkpoint Trainer::snapshot() const {
  storage::Checkpoint c;
  c.config = config_to_json(config_);
  c.weights = storage::state_dict_of(*model_);
  c.optimizer = storage::optimizer_bytes(*optimizer_);
  c.rng = rng_states();
  c.state = training_state(state_.elapsed_seconds());
  return c;
}

std::string Trainer::save_checkpoint(bool best) {
  std::string path = checkpoints_->save(snapshot(), best);
  state_.last_saved_step = state_.step;
  progress_->clear();
  log_->info("saved checkpoint {}{}", path, best ? " (best so far)" : "");
  return path;
}

}  // namespace nmt::train
