#include "serve/batcher.h"

#include <ATen/Parallel.h>

#include "util/error.h"

namespace nmt::serve {

struct Batcher::Request {
  std::vector<model::SentenceTranslation> results;
  std::mutex mutex;
  std::condition_variable done;
  size_t pending = 0;  // sentences not yet translated
  std::exception_ptr error;
};

void BatcherOptions::validate() const {
  if (batch_sentences < 1)
    throw UsageError("--batch-size must be at least 1 (got " + std::to_string(batch_sentences) + ").");
  if (batch_tokens < 1)
    throw UsageError("--batch-tokens must be at least 1 (got " + std::to_string(batch_tokens) + ").");
  if (max_wait_ms < 0) throw UsageError("--batch-wait-ms must not be negative.");
  if (queue_sentences < batch_sentences) {
    throw UsageError("--queue-sentences (" + std::to_string(queue_sentences) + ") must be at least --batch-size (" +
                     std::to_string(batch_sentences) + ").");
  }
}

Batcher::Batcher(model::Translator& translator, BatcherOptions options, ServerMetrics& metrics)
    : translator_(translator), options_(options), metrics_(metrics) {
  options_.validate();
  // ATen's OpenMP pool size is a per-thread setting: the worker takes the
  // creating thread's (the command line's --threads), not OpenMP's default.
  const int threads = at::get_num_threads();
  worker_ = std::thread([this, threads] {
    at::set_num_threads(threads);
    run();
  });
}

Batcher::~Batcher() { stop(); }

void Batcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

std::vector<model::SentenceTranslation> Batcher::translate(const std::vector<std::string>& lines) {
  auto request = std::make_shared<Request>();
  request->results.reserve(lines.size());
  std::vector<Item> items;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& line : lines) {
    request->results.push_back(translator_.encode(line));  // in this thread: encoding runs in parallel
    const auto& source = request->results.back().source;
    if (!source.empty()) {
      items.push_back({request, request->results.size() - 1, static_cast<int64_t>(source.size()), now});
    }
  }
  if (items.empty()) return std::move(request->results);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw ShuttingDown("The server is shutting down; no new translations are taken.");
    const auto waiting = static_cast<int64_t>(queue_.size());
    if (waiting + static_cast<int64_t>(items.size()) > options_.queue_sentences) {
      throw QueueFull("The translation queue is full (" + std::to_string(waiting) + " of " +
                      std::to_string(options_.queue_sentences) + " sentences waiting); try again shortly.");
    }
    request->pending = items.size();
    for (auto& item : items) {
      queued_tokens_ += item.tokens;
      queue_.push_back(std::move(item));
    }
    metrics_.set_queue(static_cast<int64_t>(queue_.size()));
  }
  wake_.notify_one();
  std::unique_lock<std::mutex> lock(request->mutex);
  request->done.wait(lock, [&] { return request->pending == 0; });
  if (request->error) std::rethrow_exception(request->error);
  return std::move(request->results);
}

void Batcher::run() {
  for (;;) {
    std::vector<Item> batch = next_batch();
    if (batch.empty()) return;  // stopping, and nothing is left
    translate_batch(batch);
  }
}

bool Batcher::budget_full() const {
  return static_cast<int64_t>(queue_.size()) >= options_.batch_sentences || queued_tokens_ >= options_.batch_tokens;
}

// Waits for work, then for company until the budget is full or the oldest
// sentence has waited max_wait_ms; takes the oldest sentences that fit.
std::vector<Batcher::Item> Batcher::next_batch() {
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  if (queue_.empty()) return {};
  const auto deadline = queue_.front().arrived + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                     std::chrono::duration<double, std::milli>(options_.max_wait_ms));
  wake_.wait_until(lock, deadline, [&] { return stopping_ || budget_full(); });
  std::vector<Item> batch;
  int64_t tokens = 0;
  while (!queue_.empty() && static_cast<int64_t>(batch.size()) < options_.batch_sentences &&
         (batch.empty() || tokens + queue_.front().tokens <= options_.batch_tokens)) {
    tokens += queue_.front().tokens;
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  queued_tokens_ -= tokens;
  metrics_.set_queue(static_cast<int64_t>(queue_.size()));
  return batch;
}

void Batcher::translate_batch(std::vector<Item>& batch) {
  std::vector<std::vector<int64_t>> sources;
  sources.reserve(batch.size());
  int64_t source_tokens = 0, target_tokens = 0;
  for (const auto& item : batch) {
    sources.push_back(item.request->results[item.index].source);
    source_tokens += item.tokens;
  }
  std::exception_ptr error;
  try {
    auto hypotheses = translator_.translate_ids(sources);
    for (size_t k = 0; k < batch.size(); ++k) {
      auto& result = batch[k].request->results[batch[k].index];
      translator_.attach(result, std::move(hypotheses[k]));
      if (!result.hypotheses.empty())
        target_tokens += static_cast<int64_t>(result.hypotheses.front().tokens.size()) + 1;
    }
  } catch (...) {
    error = std::current_exception();
  }
  metrics_.count_batch(static_cast<int64_t>(batch.size()), source_tokens, target_tokens);
  for (auto& item : batch) finish_item(*item.request, error);
}

void Batcher::finish_item(Request& request, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(request.mutex);
  if (error && !request.error) request.error = error;
  if (--request.pending == 0) request.done.notify_all();
}

}  // namespace nmt::serve
