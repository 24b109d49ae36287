#include "data/batch_plan.h"

#include <algorithm>
#include <numeric>

#include "data/encoded_corpus.h"
#include "data/epoch_order.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::data {
namespace {

struct Item {
  uint64_t key;   // sort order, see sort_key
  uint32_t s, t;  // full lengths (sos and eos included)
  PairRef pair;
};

// By source length, then by target length ascending for even and descending
// for odd source lengths: a batch that straddles two source lengths then
// meets similar target lengths on both sides of the seam.
Item item_of(const CorpusMix& mix, PairRef p) {
  const auto s = static_cast<uint32_t>(mix.src_len(p) + 2);
  const auto t = static_cast<uint32_t>(mix.tgt_len(p) + 2);
  const uint32_t t_key = (s & 1) ? UINT32_MAX - t : t;
  return {static_cast<uint64_t>(s) << 32 | t_key, s, t, p};
}

// Stable: among equal lengths the incoming order (random or by index) decides.
void sort_items(std::vector<Item>& items) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
}

// Greedy cut of sorted items into batches within the budget.
BatchPlan cut_batches(const std::vector<Item>& items, int64_t batch_tokens) {
  BatchPlan plan;
  plan.pairs.reserve(items.size());
  uint64_t rows = 0, max_s = 0, max_t = 0;
  const auto budget = static_cast<uint64_t>(batch_tokens);
  for (const Item& item : items) {
    const uint64_t s = item.s, t = item.t;
    if (rows > 0 && (rows + 1) * std::max({max_s, max_t, s, t}) > budget) {
      plan.starts.push_back(plan.pairs.size() - rows);
      rows = max_s = max_t = 0;
    }
    plan.pairs.push_back(item.pair);
    ++rows;
    max_s = std::max(max_s, s);
    max_t = std::max(max_t, t);
  }
  if (rows > 0) plan.starts.push_back(plan.pairs.size() - rows);
  plan.starts.push_back(plan.pairs.size());
  return plan;
}

BatchPlan shuffled(const BatchPlan& sorted, uint64_t shuffle_key) {
  Rng rng(shuffle_key);
  std::vector<uint32_t> batch_order(static_cast<size_t>(sorted.size()));
  std::iota(batch_order.begin(), batch_order.end(), 0u);
  shuffle(batch_order.begin(), batch_order.end(), rng);
  BatchPlan plan;
  plan.pairs.reserve(sorted.pairs.size());
  plan.starts.reserve(sorted.starts.size());
  for (uint32_t b : batch_order) {
    plan.starts.push_back(plan.pairs.size());
    plan.pairs.insert(plan.pairs.end(), sorted.pairs.begin() + static_cast<int64_t>(sorted.starts[b]),
                      sorted.pairs.begin() + static_cast<int64_t>(sorted.starts[b + 1]));
  }
  plan.starts.push_back(plan.pairs.size());
  return plan;
}

void require_budget(int64_t batch_tokens) {
  if (batch_tokens <= 0) throw UsageError("train.batch_tokens must be positive (got " + std::to_string(batch_tokens) + ").");
}

}  // namespace

BatchPlan plan_window(const CorpusMix& mix, const EpochOrder& order, uint64_t begin, uint64_t end,
                      int64_t batch_tokens, uint64_t shuffle_key) {
  require_budget(batch_tokens);
  std::vector<Item> items;
  items.reserve(end - begin);
  for (uint64_t k = begin; k < end; ++k) items.push_back(item_of(mix, order.at(k)));
  sort_items(items);
  return shuffled(cut_batches(items, batch_tokens), shuffle_key);
}

BatchPlan plan_sorted_batches(const CorpusMix& mix, int64_t batch_tokens) {
  require_budget(batch_tokens);
  std::vector<Item> items;
  items.reserve(static_cast<size_t>(mix.pairs()));
  for (size_t s = 0; s < mix.size(); ++s) {
    const auto n = static_cast<uint32_t>(mix.corpus(s).size());
    for (uint32_t i = 0; i < n; ++i) items.push_back(item_of(mix, {static_cast<uint32_t>(s), i}));
  }
  sort_items(items);
  return cut_batches(items, batch_tokens);
}

}  // namespace nmt::data
