#include "data/batch_iterator.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "data/encoded_corpus.h"
#include "data/epoch_order.h"
#include "util/error.h"
#include "util/random.h"

namespace nmt::data {
namespace {

// Saved states say which way of ordering an epoch they count in.
constexpr int kOrder = 2;  // 2: windows of a pseudo-random permutation over the corpora's quotas

uint64_t window_key(uint64_t seed, int64_t epoch, int64_t window) {
  return splitmix64(seed) ^ splitmix64(0x5EED0000ull + static_cast<uint64_t>(epoch)) ^
         mix64(static_cast<uint64_t>(window) + 1);
}

std::string numbers(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "(" + s + ")";
}

}  // namespace

nlohmann::json iterator_state_to_json(const IteratorState& s) {
  return {{"order", kOrder},
          {"seed", s.seed},
          {"epoch", s.epoch},
          {"window", s.window},
          {"next_batch", s.next_batch},
          {"corpus_pairs", s.corpus_pairs},
          {"weights", s.weights},
          {"batch_tokens", s.batch_tokens},
          {"window_draws", s.window_draws},
          {"pairs_seen", s.pairs_seen}};
}

IteratorState iterator_state_from_json(const nlohmann::json& j) {
  IteratorState s;
  if (j.is_object() && j.value("order", 0) != kOrder) {
    throw DataError("The saved data position was written by an earlier version of the trainer, which ordered epochs "
                    "differently: resuming would repeat some pairs of this epoch and skip others. Finish that run with "
                    "the version that started it, or start a new run from it with --init-from (and "
                    "--init-keep-optimizer to keep its optimizer and schedule).");
  }
  try {
    s.seed = j.at("seed").get<uint64_t>();
    s.epoch = j.at("epoch").get<int64_t>();
    s.next_batch = j.at("next_batch").get<int64_t>();
    s.batch_tokens = j.at("batch_tokens").get<int64_t>();
    s.window = j.at("window").get<int64_t>();
    s.corpus_pairs = j.at("corpus_pairs").get<std::vector<int64_t>>();
    s.weights = j.at("weights").get<std::vector<double>>();
    s.window_draws = j.at("window_draws").get<int64_t>();
    s.pairs_seen = j.at("pairs_seen").get<std::vector<int64_t>>();
  } catch (const nlohmann::json::exception& e) {
    throw DataError("The saved data position " + j.dump() + " is damaged: " + e.what());
  }
  return s;
}

BatchIterator::BatchIterator(std::shared_ptr<const CorpusMix> mix, int64_t batch_tokens, uint64_t seed,
                             SpecialIds ids, int64_t epoch, int64_t window_draws)
    : mix_(std::move(mix)), batch_tokens_(batch_tokens), window_draws_(window_draws), seed_(seed), ids_(ids) {
  if (batch_tokens_ <= 0) {
    throw UsageError("train.batch_tokens must be positive (got " + std::to_string(batch_tokens_) + ").");
  }
  if (window_draws_ <= 0) throw UsageError("The batch planning window must hold at least one pair.");
  seen_.assign(mix_->size(), 0);
  start_epoch(epoch);
}

BatchIterator::BatchIterator(std::shared_ptr<const EncodedCorpus> corpus, int64_t batch_tokens, uint64_t seed,
                             SpecialIds ids, int64_t epoch, int64_t window_draws)
    : BatchIterator(CorpusMix::of(std::move(corpus)), batch_tokens, seed, ids, epoch, window_draws) {}

void BatchIterator::start_epoch(int64_t epoch) {
  epoch_ = epoch;
  window_ = next_ = 0;
  planned_ = false;
  plan_ = BatchPlan{};
}

int64_t BatchIterator::windows_in_epoch() const {
  return (mix_->draws_per_epoch() + window_draws_ - 1) / window_draws_;
}

void BatchIterator::plan_current_window() {
  const EpochOrder order(*mix_, seed_, epoch_);
  const auto begin = static_cast<uint64_t>(window_ * window_draws_);
  const auto end = static_cast<uint64_t>(std::min(mix_->draws_per_epoch(), (window_ + 1) * window_draws_));
  plan_ = plan_window(*mix_, order, begin, end, batch_tokens_, window_key(seed_, epoch_, window_));
  planned_ = true;
  counted_batches_ = plan_.size();
  counted_draws_ = static_cast<int64_t>(end - begin);
}

bool BatchIterator::ready() {
  while (true) {
    if (!planned_) {
      if (window_ >= windows_in_epoch()) return false;
      plan_current_window();
    }
    if (next_ < plan_.size()) return true;
    ++window_;
    next_ = 0;
    planned_ = false;
    plan_ = BatchPlan{};
  }
}

int64_t BatchIterator::batches_in_epoch() {
  if (counted_draws_ == 0 && !ready()) {
    const int64_t window = window_;  // at the epoch's end: count its first window
    window_ = 0;
    plan_current_window();
    window_ = window;
    planned_ = false;
    plan_ = BatchPlan{};
  }
  if (windows_in_epoch() == 1) return counted_batches_;
  return std::llround(static_cast<double>(counted_batches_) * static_cast<double>(mix_->draws_per_epoch()) /
                      static_cast<double>(counted_draws_));
}

void BatchIterator::count_seen(uint64_t begin, uint64_t end) {
  for (uint64_t k = begin; k < end; ++k) ++seen_[plan_.pairs[k].source];
}

bool BatchIterator::next(Batch& batch) {
  if (!ready()) return false;
  const uint64_t begin = plan_.starts[static_cast<size_t>(next_)];
  const uint64_t end = plan_.starts[static_cast<size_t>(next_) + 1];
  batch = make_batch(*mix_, plan_.pairs.data() + begin, end - begin, ids_);
  count_seen(begin, end);
  ++next_;
  return true;
}

bool BatchIterator::skip(int64_t& src_tokens, int64_t& tgt_tokens) {
  if (!ready()) return false;
  src_tokens = tgt_tokens = 0;
  const uint64_t begin = plan_.starts[static_cast<size_t>(next_)];
  const uint64_t end = plan_.starts[static_cast<size_t>(next_) + 1];
  for (uint64_t k = begin; k < end; ++k) {
    src_tokens += source_tokens_of(mix_->src_len(plan_.pairs[k]), ids_.src);
    tgt_tokens += target_tokens_of(mix_->tgt_len(plan_.pairs[k]));
  }
  count_seen(begin, end);
  ++next_;
  return true;
}

IteratorState BatchIterator::state() const {
  IteratorState s;
  s.seed = seed_;
  s.epoch = epoch_;
  s.window = window_;
  s.next_batch = next_;
  for (size_t i = 0; i < mix_->size(); ++i) {
    s.corpus_pairs.push_back(mix_->corpus(i).size());
    s.weights.push_back(mix_->source(i).weight);
  }
  s.batch_tokens = batch_tokens_;
  s.window_draws = window_draws_;
  s.pairs_seen = seen_;
  return s;
}

void BatchIterator::restore(const IteratorState& s) {
  const IteratorState here = state();
  if (s.corpus_pairs != here.corpus_pairs || s.batch_tokens != batch_tokens_) {
    throw DataError("Cannot continue: the data position was saved with " + numbers(s.corpus_pairs) +
                    " training pairs and batch_tokens " + std::to_string(s.batch_tokens) + ", but this run has " +
                    numbers(here.corpus_pairs) + " pairs and batch_tokens " + std::to_string(batch_tokens_) +
                    " (the corpora, vocabulary, filters or batch size changed).");
  }
  if (!s.weights.empty() && s.weights != here.weights) {
    throw DataError("Cannot continue: the corpora's weights changed since the data position was saved; use the "
                    "weights of the run (or start a new run from it with --init-from).");
  }
  if (s.window_draws != window_draws_) {
    throw DataError("Cannot continue: the data position was saved with planning windows of " +
                    std::to_string(s.window_draws) + " pairs, this run plans " + std::to_string(window_draws_) + ".");
  }
  const auto outside = [&] {
    return DataError("Cannot continue: the saved data position (window " + std::to_string(s.window) + ", batch " +
                     std::to_string(s.next_batch) + ") lies outside epoch " + std::to_string(s.epoch) + ".");
  };
  if (s.epoch < 0 || s.window < 0 || s.next_batch < 0) throw outside();
  seed_ = s.seed;
  start_epoch(s.epoch);
  window_ = s.window;
  const bool past_end = window_ >= windows_in_epoch();
  if (!past_end) plan_current_window();
  if (s.next_batch > (past_end ? 0 : plan_.size())) {
    throw outside();
  }
  next_ = s.next_batch;
  if (s.pairs_seen.size() == seen_.size()) seen_ = s.pairs_seen;
}

std::vector<Batch> make_sorted_batches(const EncodedCorpus& corpus, int64_t batch_tokens, const SpecialIds& ids,
                                       int32_t tag_id) {
  MixSource source;
  source.corpus = std::shared_ptr<const EncodedCorpus>(&corpus, [](const EncodedCorpus*) {});
  source.tag_id = tag_id;
  const auto mix = std::make_shared<const CorpusMix>(std::vector<MixSource>{std::move(source)});
  const BatchPlan plan = plan_sorted_batches(*mix, batch_tokens);
  std::vector<Batch> batches;
  batches.reserve(static_cast<size_t>(plan.size()));
  for (int64_t b = 0; b < plan.size(); ++b) {
    const uint64_t begin = plan.starts[static_cast<size_t>(b)];
    batches.push_back(make_batch(*mix, plan.pairs.data() + begin, plan.starts[static_cast<size_t>(b) + 1] - begin, ids));
  }
  return batches;
}

}  // namespace nmt::data
