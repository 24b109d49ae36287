#include "data/batch_plan.h"

#include <algorithm>
#include <numeric>

#include "data/encoded_corpus.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::data {
namespace {

struct Item {
  uint64_t key;   // sort order, see items_in_order
  uint32_t s, t;  // full lengths (sos and eos included)
  uint32_t pair;
};

std::vector<Item> items_in_order(const EncodedCorpus& corpus, const std::vector<uint32_t>& order) {
  std::vector<Item> items(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    const auto s = static_cast<uint32_t>(corpus.src_len(i) + 2);
    const auto t = static_cast<uint32_t>(corpus.tgt_len(i) + 2);
    // By source length, then by target length ascending for even and
    // descending for odd source lengths: a batch that straddles two source
    // lengths then meets similar target lengths on both sides of the seam.
    const uint32_t t_key = (s & 1) ? UINT32_MAX - t : t;
    items[k] = {static_cast<uint64_t>(s) << 32 | t_key, s, t, i};
  }
  // Stable: among equal lengths the incoming order (random or by index) decides.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
  return items;
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

std::vector<uint32_t> identity(const EncodedCorpus& corpus) {
  if (corpus.size() > static_cast<int64_t>(UINT32_MAX)) {
    throw DataError("The corpus has " + std::to_string(corpus.size()) + " pairs; at most 2^32 - 1 are supported.");
  }
  std::vector<uint32_t> order(static_cast<size_t>(corpus.size()));
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

void require_budget(int64_t batch_tokens) {
  if (batch_tokens <= 0) throw UsageError("train.batch_tokens must be positive (got " + std::to_string(batch_tokens) + ").");
}

}  // namespace

BatchPlan plan_shuffled_batches(const EncodedCorpus& corpus, int64_t batch_tokens, uint64_t seed, int64_t epoch) {
  require_budget(batch_tokens);
  Rng rng(splitmix64(seed) ^ splitmix64(0x5EED0000ull + static_cast<uint64_t>(epoch)));
  std::vector<uint32_t> order = identity(corpus);
  shuffle(order.begin(), order.end(), rng);
  const BatchPlan sorted = cut_batches(items_in_order(corpus, order), batch_tokens);

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

BatchPlan plan_sorted_batches(const EncodedCorpus& corpus, int64_t batch_tokens) {
  require_budget(batch_tokens);
  return cut_batches(items_in_order(corpus, identity(corpus)), batch_tokens);
}

}  // namespace nmt::data
