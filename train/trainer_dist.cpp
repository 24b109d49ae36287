// A trainer as one rank of a data-parallel job: joining it, preparing shared
// files in turn, starting from rank 0's state, agreeing when to stop, and
// summing gradients. In a plain process every function here does nothing.
//
// Every rank runs the same sequence of collectives: one agreement per step
// (any rank's stop signal, rank 0's time budget or early stop end the job at
// the same step everywhere) and one gradient allreduce per step. Rank 0 alone
// validates and writes; the others wait for it in the next agreement.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "data/encoded_corpus.h"

#include "storage/optimizer_bytes.h"
#include "train/trainer.h"
#include "util/error.h"

namespace nmt::train {

void Trainer::join_job() {
  if (!options_.job || !options_.job->distributed()) return;
  comm_ = std::make_unique<distributed::Communicator>(*options_.job, device_);
}

void Trainer::prepare_in_turn(const std::function<void()>& prepare) {
  if (!comm_) {
    prepare();
    return;
  }
  // Rank 0 first; then the first rank of each other machine, which finds
  // rank 0's files where the output directory is shared and makes its own
  // where it is not; then everyone else, who finds them made.
  const int turn = rank() == 0 ? 0 : comm_->job().local_rank == 0 ? 1 : 2;
  for (int t = 0; t < 3; ++t) {
    if (t == turn) prepare();
    comm_->barrier("preparing the vocabulary and the data");
  }
}

// Ranks that read different corpora, vocabularies or settings would train on
// batches that do not add up (or hang when their step counts differ).
void Trainer::check_same_data_as_rank0() {
  if (!comm_) return;
  const data::CorpusMix& mix = *data_.train;
  int64_t src_tokens = 0, tgt_tokens = 0;
  for (size_t i = 0; i < mix.size(); ++i) {
    src_tokens += mix.corpus(i).src_tokens();
    tgt_tokens += mix.corpus(i).tgt_tokens();
  }
  const std::vector<int64_t> mine = {mix.pairs(),
                                     iterator_->batches_in_epoch(),
                                     config_.model.enc_voc_size,
                                     config_.model.dec_voc_size,
                                     src_tokens,
                                     tgt_tokens,
                                     static_cast<int64_t>(validator_->batches())};
  const auto here = torch::tensor(mine, torch::kInt64);
  auto rank0 = here.clone();
  comm_->broadcast(rank0, "comparing the ranks' data");
  const bool differs = !torch::equal(here, rank0);
  if (!comm_->any(differs, "comparing the ranks' data")) return;
  if (!differs) {
    throw DataError("Another rank's training data differ from rank 0's (see its message): every rank must read the "
                    "same corpus and vocabulary with the same configuration.");
  }
  auto text = [](const torch::Tensor& t) {
    std::string out;
    for (int64_t i = 0; i < t.numel(); ++i) out += (i ? ", " : "") + std::to_string(t[i].item<int64_t>());
    return out;
  };
  throw DataError(fmt::format("Rank {}'s training data differ from rank 0's: (pairs, batches per epoch, source and "
                              "target vocabulary, source and target tokens, validation batches) are ({}) here and "
                              "({}) on rank 0. Every rank must read the same corpora (from {} on) and vocabulary "
                              "with the same configuration.",
                              rank(), text(here), text(rank0), mix.source(0).name));
}

// Rank 0 has started afresh or resumed from its checkpoint; the others take
// its weights, optimizer state and training position, so that a job resumes
// as one even where only rank 0's machine holds the checkpoints.
void Trainer::share_start_state() {
  if (!comm_) return;
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model_->parameters()) {
      torch::Tensor data = p.detach();
      comm_->broadcast(data, "sharing rank 0's weights");
    }
  }
  const std::string optimizer =
      comm_->broadcast_bytes(writer() && state_.step > 0 ? storage::optimizer_bytes(*optimizer_) : std::string(),
                             "sharing rank 0's optimizer state");
  // The clock of this process has not started yet: rank 0 sends what it resumed with.
  const nlohmann::json state = training_state(state_.elapsed_before);
  const std::string shared = comm_->broadcast_bytes(writer() ? state.dump() : std::string(),
                                                    "sharing rank 0's training position");
  if (writer()) return;
  if (!optimizer.empty()) storage::load_optimizer_bytes(*optimizer_, optimizer, "rank 0's state");
  apply_training_state(nlohmann::json::parse(shared));
  state_.last_saved_step = state_.step;
}

bool Trainer::agree_to_stop(bool stop) { return comm_ ? comm_->any(stop, "agreeing on the next step") : stop; }

void Trainer::sum_gradients(StepStats& stats) {
  if (!gradient_sync_) return;
  const auto started = std::chrono::steady_clock::now();
  std::vector<double> sums = {stats.loss_sum, stats.nll_sum};
  gradient_sync_->allreduce(*comm_, sums);
  stats.loss_sum = sums[0];
  stats.nll_sum = sums[1];
  interval_.allreduce_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// At the end every rank waits for the others (rank 0's last checkpoint
// included) and then tells them it finished, so that its silence is not read
// as a crash; after an error it tells them at once and leaves.
void Trainer::leave_job() {
  if (comm_) comm_->leave();
}

void Trainer::leave_job_after_error(const std::string& error_message) {
  if (comm_) comm_->leave_after_error(error_message);
}

}  // namespace nmt::train
