// Training batches, epoch by epoch, in an order fixed by (seed, epoch), with
// a position that saves and restores exactly for resumed training.
//
//   BatchIterator it(corpus, batch_tokens, seed, ids);   // at epoch 0
//   for (...; ; it.start_epoch(it.epoch() + 1)) {
//     Batch b;
//     while (it.next(b)) train_on(b);
//   }
#pragma once

#include <cstdint>
#include <memory>

#include <nlohmann/json_fwd.hpp>

#include "data/batch.h"
#include "data/batch_plan.h"

namespace nmt::data {

struct IteratorState {
  uint64_t seed = 0;
  int64_t epoch = 0;
  int64_t next_batch = 0;  // index in the epoch's order of the batch next() returns
  // The corpus and budget it was saved with: restoring onto others would
  // silently give different batches, so restore() refuses.
  int64_t num_pairs = 0;
  int64_t batch_tokens = 0;
};

nlohmann::json iterator_state_to_json(const IteratorState& state);
// Throws nmt::DataError when a key is missing or has the wrong type.
IteratorState iterator_state_from_json(const nlohmann::json& j);

class BatchIterator {
 public:
  BatchIterator(std::shared_ptr<const EncodedCorpus> corpus, int64_t batch_tokens, uint64_t seed,
                SpecialIds ids, int64_t epoch = 0);

  // Plans the given epoch and moves to its first batch.
  void start_epoch(int64_t epoch);
  // The next batch of the current epoch; false once the epoch is done.
  bool next(Batch& batch);
  // Moves past the next batch without building it (another data-parallel
  // rank trains on it) and tells its token counts; false once the epoch is done.
  bool skip(int64_t& src_tokens, int64_t& tgt_tokens);

  IteratorState state() const;
  // Continues exactly where state was taken: next() then returns the batch
  // the saved iterator would have returned. Throws nmt::DataError when the
  // state belongs to another corpus or batch size.
  void restore(const IteratorState& state);

  int64_t epoch() const { return epoch_; }
  int64_t batches_in_epoch() const { return plan_.size(); }
  int64_t next_batch() const { return next_; }
  const EncodedCorpus& corpus() const { return *corpus_; }

 private:
  std::shared_ptr<const EncodedCorpus> corpus_;
  int64_t batch_tokens_;
  uint64_t seed_;
  SpecialIds ids_;
  int64_t epoch_ = 0;
  int64_t next_ = 0;
  BatchPlan plan_;
};

// All batches of a corpus in a fixed, unshuffled order (validation).
std::vector<Batch> make_sorted_batches(const EncodedCorpus& corpus, int64_t batch_tokens, const SpecialIds& ids);

}  // namespace nmt::data
