#include "data/batch_iterator.h"

#include <nlohmann/json.hpp>

#include "data/encoded_corpus.h"
#include "util/error.h"

namespace nmt::data {

nlohmann::json iterator_state_to_json(const IteratorState& s) {
  return {{"seed", s.seed},
          {"epoch", s.epoch},
          {"next_batch", s.next_batch},
          {"num_pairs", s.num_pairs},
          {"batch_tokens", s.batch_tokens}};
}

IteratorState iterator_state_from_json(const nlohmann::json& j) {
  IteratorState s;
  try {
    s.seed = j.at("seed").get<uint64_t>();
    s.epoch = j.at("epoch").get<int64_t>();
    s.next_batch = j.at("next_batch").get<int64_t>();
    s.num_pairs = j.at("num_pairs").get<int64_t>();
    s.batch_tokens = j.at("batch_tokens").get<int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw DataError("The saved data position " + j.dump() + " is damaged: " + e.what());
  }
  return s;
}

BatchIterator::BatchIterator(std::shared_ptr<const EncodedCorpus> corpus, int64_t batch_tokens, uint64_t seed,
                             SpecialIds ids, int64_t epoch)
    : corpus_(std::move(corpus)), batch_tokens_(batch_tokens), seed_(seed), ids_(ids) {
  start_epoch(epoch);
}

void BatchIterator::start_epoch(int64_t epoch) {
  plan_ = plan_shuffled_batches(*corpus_, batch_tokens_, seed_, epoch);
  epoch_ = epoch;
  next_ = 0;
}

bool BatchIterator::next(Batch& batch) {
  if (next_ >= plan_.size()) return false;
  const uint64_t begin = plan_.starts[static_cast<size_t>(next_)];
  const uint64_t end = plan_.starts[static_cast<size_t>(next_) + 1];
  batch = make_batch(*corpus_, plan_.pairs.data() + begin, end - begin, ids_);
  ++next_;
  return true;
}

bool BatchIterator::skip(int64_t& src_tokens, int64_t& tgt_tokens) {
  if (next_ >= plan_.size()) return false;
  src_tokens = tgt_tokens = 0;
  const auto begin = plan_.starts[static_cast<size_t>(next_)], end = plan_.starts[static_cast<size_t>(next_) + 1];
  for (uint64_t k = begin; k < end; ++k) {
    src_tokens += source_tokens_of(corpus_->src_len(plan_.pairs[k]));
    tgt_tokens += target_tokens_of(corpus_->tgt_len(plan_.pairs[k]));
  }
  ++next_;
  return true;
}

IteratorState BatchIterator::state() const {
  return {seed_, epoch_, next_, corpus_->size(), batch_tokens_};
}

void BatchIterator::restore(const IteratorState& s) {
  if (s.num_pairs != corpus_->size() || s.batch_tokens != batch_tokens_) {
    throw DataError("Cannot continue: the data position was saved with " + std::to_string(s.num_pairs) +
                    " training pairs and batch_tokens " + std::to_string(s.batch_tokens) + ", but this run has " +
                    std::to_string(corpus_->size()) + " pairs and batch_tokens " + std::to_string(batch_tokens_) +
                    " (the corpus, vocabulary, filters or batch size changed).");
  }
  seed_ = s.seed;
  start_epoch(s.epoch);
  if (s.next_batch < 0 || s.next_batch > plan_.size()) {
    throw DataError("Cannot continue: the saved data position (batch " + std::to_string(s.next_batch) +
                    ") lies outside epoch " + std::to_string(s.epoch) + " of " + std::to_string(plan_.size()) +
                    " batches.");
  }
  next_ = s.next_batch;
}

std::vector<Batch> make_sorted_batches(const EncodedCorpus& corpus, int64_t batch_tokens, const SpecialIds& ids) {
  const BatchPlan plan = plan_sorted_batches(corpus, batch_tokens);
  std::vector<Batch> batches;
  batches.reserve(static_cast<size_t>(plan.size()));
  for (int64_t b = 0; b < plan.size(); ++b) {
    const uint64_t begin = plan.starts[static_cast<size_t>(b)];
    batches.push_back(make_batch(corpus, plan.pairs.data() + begin, plan.starts[static_cast<size_t>(b) + 1] - begin, ids));
  }
  return batches;
}

}  // namespace nmt::data
