// Which pairs go into which batch, before any tensor exists. Batches are
// cut from pairs sorted by (source, target) length, so that rows of a batch
// have nearly equal lengths and padding stays small, within a budget of
// padded cells: rows * max(S, T) <= batch_tokens, where S and T are the
// longest source and target of the batch counted with sos and eos (and a
// corpus's tag). A pair longer than the budget alone still forms its own batch.
//
// Training plans an epoch one window of its order at a time (data/epoch_order.h):
// the window's pairs are sorted and cut, and its batches shuffled. Against a
// sort of the whole epoch, what is lost is only that pairs of equal length in
// different windows never share a batch, and that a batch's place is random
// within its window rather than the epoch; each window is itself a uniform
// random sample of the epoch, so batches hold the same mix of corpora and
// lengths, and with windows of 2^20 pairs the padding barely changes.
#pragma once

#include <cstdint>
#include <vector>

#include "data/corpus_mix.h"

namespace nmt::data {

class EpochOrder;

struct BatchPlan {
  std::vector<PairRef> pairs;    // batch after batch
  std::vector<uint64_t> starts;  // batch b is pairs[starts[b], starts[b + 1])
  int64_t size() const { return starts.empty() ? 0 : static_cast<int64_t>(starts.size()) - 1; }
};

// The batches of positions [begin, end) of an epoch's order, shuffled by
// shuffle_key; equal lengths keep the order's (random) order.
BatchPlan plan_window(const CorpusMix& mix, const EpochOrder& order, uint64_t begin, uint64_t end,
                      int64_t batch_tokens, uint64_t shuffle_key);

// A fixed order (validation): every pair of every corpus, sorted by length,
// ties by index, not shuffled.
BatchPlan plan_sorted_batches(const CorpusMix& mix, int64_t batch_tokens);

}  // namespace nmt::data
