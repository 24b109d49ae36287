// Which pairs go into which batch, before any tensor exists. Batches are
// cut from pairs sorted by (source, target) length, so that rows of a batch
// have nearly equal lengths and padding stays small, within a budget of
// padded cells: rows * max(S, T) <= batch_tokens, where S and T are the
// longest source and target of the batch counted with sos and eos. A pair
// longer than the budget alone still forms its own batch.
#pragma once

#include <cstdint>
#include <vector>

namespace nmt::data {

class EncodedCorpus;

struct BatchPlan {
  std::vector<uint32_t> pairs;   // pair indices, batch after batch
  std::vector<uint64_t> starts;  // batch b is pairs[starts[b], starts[b + 1])
  int64_t size() const { return starts.empty() ? 0 : static_cast<int64_t>(starts.size()) - 1; }
};

// Training order of one epoch, a pure function of (corpus lengths,
// batch_tokens, seed, epoch): equal lengths are ordered at random and the
// batches are shuffled.
BatchPlan plan_shuffled_batches(const EncodedCorpus& corpus, int64_t batch_tokens, uint64_t seed, int64_t epoch);

// A fixed order (validation): sorted by length, ties by index, not shuffled.
BatchPlan plan_sorted_batches(const EncodedCorpus& corpus, int64_t batch_tokens);

}  // namespace nmt::data
