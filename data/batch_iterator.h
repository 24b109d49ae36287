// Training batches, epoch by epoch, in an order fixed by (seed, epoch), with
// a position that saves and restores exactly for resumed training.
//
//   BatchIterator it(mix, batch_tokens, seed, ids);   // at epoch 0
//   for (...; ; it.start_epoch(it.epoch() + 1)) {
//     Batch b;
//     while (it.next(b)) train_on(b);
//   }
//
// An epoch is planned one window of its order at a time (data/batch_plan.h),
// when the previous window runs out: memory and the time to start or resume
// do not grow with the corpus.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/batch.h"
#include "data/batch_plan.h"
#include "data/corpus_mix.h"

namespace nmt::data {

class EncodedCorpus;

// Positions of an epoch's order planned together.
constexpr int64_t kWindowDraws = int64_t{1} << 20;

struct IteratorState {
  uint64_t seed = 0;
  int64_t epoch = 0;
  int64_t window = 0;      // the window of the epoch's order that holds the next batch
  int64_t next_batch = 0;  // index in that window's batches of the batch next() returns
  // The corpora, weights and budget it was saved with: restoring onto others
  // would silently give different batches, so restore() refuses.
  std::vector<int64_t> corpus_pairs;
  std::vector<double> weights;
  int64_t batch_tokens = 0;
  int64_t window_draws = kWindowDraws;
  std::vector<int64_t> pairs_seen;  // per corpus, since the run began
};

nlohmann::json iterator_state_to_json(const IteratorState& state);
// Throws nmt::DataError when a key is missing or has the wrong type.
IteratorState iterator_state_from_json(const nlohmann::json& j);

class BatchIterator {
 public:
  BatchIterator(std::shared_ptr<const CorpusMix> mix, int64_t batch_tokens, uint64_t seed, SpecialIds ids,
                int64_t epoch = 0, int64_t window_draws = kWindowDraws);
  // One corpus.
  BatchIterator(std::shared_ptr<const EncodedCorpus> corpus, int64_t batch_tokens, uint64_t seed, SpecialIds ids,
                int64_t epoch = 0, int64_t window_draws = kWindowDraws);

  // Moves to the first batch of the given epoch.
  void start_epoch(int64_t epoch);
  // The next batch of the current epoch; false once the epoch is done.
  bool next(Batch& batch);
  // Moves past the next batch without building it (another data-parallel
  // rank trains on it) and tells its token counts; false once the epoch is done.
  bool skip(int64_t& src_tokens, int64_t& tgt_tokens);

  IteratorState state() const;
  // Continues exactly where state was taken: next() then returns the batch
  // the saved iterator would have returned. Throws nmt::DataError when the
  // state belongs to other corpora, weights or batch size.
  void restore(const IteratorState& state);

  int64_t epoch() const { return epoch_; }
  // Exact when the epoch is one window; otherwise the current window's
  // batches scaled to the epoch's draws (windows differ by a few batches).
  int64_t batches_in_epoch();
  int64_t windows_in_epoch() const;
  const CorpusMix& mix() const { return *mix_; }
  const std::vector<int64_t>& pairs_seen() const { return seen_; }

 private:
  // Plans windows until one has a batch left at next_; false at the epoch's end.
  bool ready();
  void plan_current_window();
  void count_seen(uint64_t begin, uint64_t end);

  std::shared_ptr<const CorpusMix> mix_;
  int64_t batch_tokens_, window_draws_;
  uint64_t seed_;
  SpecialIds ids_;
  int64_t epoch_ = 0, window_ = 0, next_ = 0;
  bool planned_ = false;  // plan_ holds window_ of epoch_
  BatchPlan plan_;
  int64_t counted_batches_ = 0, counted_draws_ = 0;  // the window planned last
  std::vector<int64_t> seen_;
};

// All batches of a corpus in a fixed, unshuffled order (validation), each
// source after `tag_id` when it is not -1.
std::vector<Batch> make_sorted_batches(const EncodedCorpus& corpus, int64_t batch_tokens, const SpecialIds& ids,
                                       int32_t tag_id = -1);

}  // namespace nmt::data
