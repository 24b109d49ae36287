// The end of a run (after the last step, a spent time budget, an early stop or
// a clean stop on a signal): checkpoint averaging, the final validation of
// best.pt and average.pt with the final beam, checkpoints/scores.json for the
// translator's choice, the search it decodes with (decoding.json), and how
// much of the run validation took.
#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "storage/checkpoint_average.h"
#include "storage/decoding_choice.h"
#include "train/trainer.h"
#include "train/validation.h"
#include "util/allocator.h"
#include "util/atomic_file.h"
#include "util/large_block_cache.h"

namespace nmt::train {
namespace fs = std::filesystem;

void Trainer::finish_run() {
  const double training_seconds = state_.elapsed_seconds();
  const auto started = std::chrono::steady_clock::now();
  release_training_memory();
  const std::optional<storage::Checkpoint> average =
      config_.checkpoint.average_last > 0 ? write_average() : std::nullopt;
  if (!validator_->empty()) {
    // best.pt is the best of the validations during training (often greedy);
    // without one, last.pt stands in.
    const std::string best = fs::exists(paths_.best) ? paths_.best : paths_.last;
    nlohmann::json scored = nlohmann::json::array();
    scored.push_back(score_checkpoint(fs::path(best).filename().string(),
                                      storage::load_checkpoint(best, storage::CheckpointParts::kWeights)));
    if (average) scored.push_back(score_checkpoint(fs::path(paths_.average).filename().string(), *average));
    const auto& chosen = *std::max_element(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
      return a.at("score").template get<double>() < b.at("score").template get<double>();
    });
    nlohmann::json scores = {{"metric", config_.valid.bleu ? "bleu" : "valid_loss"},
                             {"beam", config_.valid.beam_at_end()},
                             {"length_penalty", config_.valid.length_penalty},
                             {"checkpoints", scored},
                             {"chosen", chosen.at("file")}};
    write_file_atomically(paths_.scores, scores.dump(2) + "\n");
    log_->info("the translator will load {} (the better of the final validation)",
               chosen.at("file").get<std::string>());
    // The model holds the weights validated last; others are read again.
    const bool loaded = &chosen == &scored.back();
    learn_coverage_threshold(tune_decoding(chosen.at("file").get<std::string>(), loaded));
  }
  report_time_share(training_seconds,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

// Training is over (its last checkpoint written): the gradients, Adam's
// moments and the training step's free blocks go back to the system before
// the averaging and the final decoding, which then run well below the
// training's memory instead of on top of it.
void Trainer::release_training_memory() {
  for (auto& parameter : model_->parameters()) parameter.mutable_grad() = torch::Tensor();
  optimizer_->state().clear();
  release_large_free_blocks();
  release_free_memory();
}

// checkpoints/average.pt from the newest average_last step checkpoints (or
// as many as there are); returned so that validating it needs no second read.
std::optional<storage::Checkpoint> Trainer::write_average() {
  const auto files = checkpoints_->newest_step_files(config_.checkpoint.average_last);
  if (files.empty()) return std::nullopt;
  storage::Checkpoint averaged = storage::average_checkpoints(files);
  storage::save_checkpoint(paths_.average, averaged);
  const auto steps = averaged.state.at("averaged_steps").get<std::vector<int64_t>>();
  log_->info("wrote {}: the mean of {} checkpoints (steps {}-{}){}", paths_.average, files.size(), steps.back(),
             steps.front(),
             static_cast<int64_t>(files.size()) < config_.checkpoint.average_last
                 ? fmt::format(", fewer than checkpoint.average_last {}", config_.checkpoint.average_last)
                 : std::string());
  return averaged;
}

// Loads the checkpoint's weights into the model (training is over) and
// validates them: loss always, BLEU with the final beam when valid.bleu.
nlohmann::json Trainer::score_checkpoint(const std::string& file, const storage::Checkpoint& checkpoint) {
  storage::load_state_dict(*model_, checkpoint.weights, file);
  model_->eval();
  const int64_t beam = config_.valid.beam_at_end();
  const ValidationResult v = validator_->validate(model_, vocabs_, device_, step_settings_.precision, beam);
  nlohmann::json line = {{"type", "final"},     {"step", checkpoint.step()}, {"checkpoint", file},
                         {"final_loss", v.loss}, {"final_ppl", v.ppl},        {"beam", beam}};
  if (config_.valid.bleu) line["final_bleu"] = v.bleu;
  metrics_->write(line);
  log_->info("final validation of {} (step {}): loss {:.4f} ppl {:.2f}{}", file, checkpoint.step(), v.loss, v.ppl,
             config_.valid.bleu ? fmt::format(" BLEU {:.2f} (beam {})", v.bleu, beam)
                                : std::string());
  return {{"file", file}, {"step", checkpoint.step()}, {"score", v.score}, {"valid_loss", v.loss}};
}

// With valid.bleu: every beam x length penalty of valid.tune_* decodes the
// validation set with the chosen checkpoint (already in the model when
// `loaded`, else read from checkpoints/); the best pair goes to
// DIR/decoding.json, which the translator and the server then decode with.
std::optional<storage::DecodingChoice> Trainer::tune_decoding(const std::string& file, bool loaded) {
  const auto& v = config_.valid;
  if (!v.bleu || v.tune_beams.empty() || v.tune_length_penalties.empty()) return std::nullopt;
  if (!loaded) {
    const std::string path = (fs::path(paths_.checkpoints) / file).string();
    storage::load_state_dict(*model_, storage::load_checkpoint(path, storage::CheckpointParts::kWeights).weights,
                             path);
  }
  model_->eval();
  std::vector<storage::DecodingTrial> trials;
  for (int64_t beam : v.tune_beams) {
    for (double alpha : v.tune_length_penalties) {
      const double bleu = validator_->decode_bleu(model_, vocabs_, step_settings_.precision, beam, alpha);
      trials.push_back({beam, alpha, bleu});
      log_->info("decoding choice: beam {} length penalty {:.2f}: BLEU {:.2f}", beam, alpha, bleu);
      metrics_->write({{"type", "decoding"}, {"checkpoint", file}, {"beam", beam}, {"length_penalty", alpha},
                       {"bleu", bleu}});
    }
  }
  const auto choice = storage::choose_decoding(trials, file);
  storage::write_decoding_choice(paths_.decoding, choice);
  log_->info("the translator will decode with beam {} and length penalty {:.2f} (BLEU {:.2f} on the validation set; "
             "{})",
             choice.beam, choice.length_penalty, choice.bleu, paths_.decoding);
  return choice;
}

// After tune_decoding: the model holds the chosen checkpoint's weights.
void Trainer::learn_coverage_threshold(const std::optional<storage::DecodingChoice>& choice) {
  if (!config_.valid.bleu || length_profile_.pairs == 0) return;
  const int64_t beam = choice ? choice->beam : config_.valid.beam_at_end();
  const double alpha = choice ? choice->length_penalty : config_.valid.length_penalty;
  model_->eval();
  const auto [threshold, sentences] =
      validator_->learn_coverage_threshold(model_, vocabs_, step_settings_.precision, beam, alpha);
  if (threshold <= 0) return;
  length_profile_.coverage_threshold = threshold;
  length_profile_.coverage_sentences = sentences;
  storage::write_length_profile(paths_.lengths, length_profile_);
  log_->info("coverage check: a source word needs attention mass {:.3f} to count as translated (learned on {} "
             "validation sentences; {})",
             threshold, sentences, paths_.lengths);
}

void Trainer::report_time_share(double total, double final_seconds) {
  const double share = total > 0 ? state_.valid_seconds / total : 0.0;
  log_->info("training took {:.0f} s, of which validation {:.0f} s ({:.1f}%); the final averaging and validation "
             "{:.0f} s more",
             total, state_.valid_seconds, 100.0 * share, final_seconds);
  metrics_->write({{"type", "summary"},
                   {"step", state_.step},
                   {"train_seconds", total},
                   {"valid_seconds", state_.valid_seconds},
                   {"valid_share", share},
                   {"final_seconds", final_seconds}});
}

}  // namespace nmt::train
