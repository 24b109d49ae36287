#include "serve/batcher.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include <ATen/Parallel.h>

#include "decode/placeholder_restore.h"
#include "kernels/onednn_cache.h"
#include "util/error.h"

namespace nmt::serve {

struct Batcher::Request {
  const std::vector<decode::LinePlan>* plans = nullptr;  // the caller's, who waits until they are translated
  decode::SearchOptions search;  // how its sentences are searched: only requests that agree share a round
  std::vector<std::vector<std::vector<decode::Hypothesis>>> hypotheses;  // per line, per piece
  std::mutex mutex;
  std::condition_variable done;
  size_t pending = 0;  // sentences not yet translated
  size_t queued = 0;   // of them, still in the queue (under the batcher's mutex)
  std::exception_ptr error;
};

void BatcherOptions::validate() const {
  if (round_sentences < 1)
    throw UsageError("--round-sentences must be at least 1 (got " + std::to_string(round_sentences) + ").");
  if (round_tokens < 1)
    throw UsageError("--round-tokens must be at least 1 (got " + std::to_string(round_tokens) + ").");
  if (max_wait_ms < 0) throw UsageError("--batch-wait-ms must not be negative.");
  if (queue_sentences < 1)
    throw UsageError("--queue-sentences must be at least 1 (got " + std::to_string(queue_sentences) + ").");
  if (workers < 0) throw UsageError("--serve-workers must not be negative (got " + std::to_string(workers) + ").");
}

Batcher::Batcher(decode::Translator& translator, BatcherOptions options, ServerMetrics& metrics, ComputeTurns* turns)
    : translator_(translator), options_(options), metrics_(metrics), turns_(turns) {
  options_.validate();
  options_.workers = std::max<int64_t>(1, options_.workers);
  // ATen's OpenMP pool size is a per-thread setting: a lone worker takes the
  // creating thread's (the command line's --threads), not OpenMP's default;
  // several take one thread each.
  const int threads = options_.workers > 1 ? 1 : at::get_num_threads();
  // oneDNN 2.6 fails once its cache evicts what several threads used (kernels/onednn_cache.h).
  if (options_.workers > 1) kernels::keep_onednn_primitives();
  for (int64_t w = 0; w < options_.workers; ++w) {
    workers_.emplace_back([this, threads] {
      at::set_num_threads(threads);
      run();
    });
  }
}

Batcher::~Batcher() { stop(); }

void Batcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

struct Batcher::Task {
  std::function<void()> call;
  bool done = false;
  std::exception_ptr error;
};

std::vector<decode::LineTranslation> Batcher::translate(const std::vector<std::string>& lines) {
  std::vector<decode::LinePlan> plans;
  plans.reserve(lines.size());
  for (const auto& line : lines) plans.push_back(translator_.plan(line));  // in this thread: in parallel
  auto hypotheses = translate_checked(plans, translator_.options().search);
  std::vector<decode::LineTranslation> results;
  results.reserve(lines.size());
  for (size_t l = 0; l < lines.size(); ++l) {  // detokenizing, in this thread too
    results.push_back(translator_.rebuild(std::move(plans[l]), std::move(hypotheses[l])));
  }
  if (std::any_of(results.begin(), results.end(), decode::has_placeholders)) {
    run_on_worker([&] { decode::restore_placeholders(translator_, results); });
  }
  return results;
}

std::vector<std::vector<std::vector<decode::Hypothesis>>> Batcher::translate_checked(
    std::vector<decode::LinePlan>& plans, const decode::SearchOptions& search) {
  auto hypotheses = translator_.translate_checked(
      plans, [&](const std::vector<decode::LinePlan>& p) { return translate_plans(p, search); },
      [this](const std::function<void()>& call) { run_on_worker(call); });
  decode::CoverageTally tally;
  for (const auto& plan : plans) tally.add(plan, translator_.options().coverage);
  metrics_.count_coverage(tally);
  return hypotheses;
}

std::vector<std::vector<std::vector<decode::Hypothesis>>> Batcher::translate_plans(
    const std::vector<decode::LinePlan>& plans) {
  return translate_plans(plans, translator_.options().search);
}

std::vector<std::vector<std::vector<decode::Hypothesis>>> Batcher::translate_plans(
    const std::vector<decode::LinePlan>& plans, const decode::SearchOptions& search) {
  search.validate();
  auto request = std::make_shared<Request>();
  request->search = search;
  std::vector<Item> items;
  const auto now = std::chrono::steady_clock::now();
  int64_t sentences = 0, long_sentences = 0;
  request->plans = &plans;
  for (size_t l = 0; l < plans.size(); ++l) {
    request->hypotheses.emplace_back(plans[l].pieces.size());
    for (size_t p = 0; p < plans[l].pieces.size(); ++p) {
      items.push_back({request, l, p, static_cast<int64_t>(plans[l].pieces[p].size()), now});
    }
    sentences += plans[l].sentences;
    long_sentences += plans[l].long_sentences;
  }
  metrics_.count_sentences(sentences, long_sentences);
  if (long_sentences > 0) log_long_sentences(long_sentences);
  if (!items.empty()) enqueue_and_wait(request, items);
  return std::move(request->hypotheses);
}

// One line on standard error at most every 10 s, so that a stream of long
// input cannot flood the log; /metrics counts every one.
void Batcher::log_long_sentences(int64_t count) {
  std::lock_guard<std::mutex> lock(log_mutex_);
  long_sentences_unlogged_ += count;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_long_log_ < std::chrono::seconds(10)) return;
  std::cerr << "translator: " << long_sentences_unlogged_ << " sentence(s) longer than the model's "
            << translator_.max_source_tokens() << " source tokens, translated in pieces"
            << (last_long_log_ == std::chrono::steady_clock::time_point() ? "" : " since the last such line") << "\n";
  long_sentences_unlogged_ = 0;
  last_long_log_ = now;
}

void Batcher::run_on_worker(const std::function<void()>& call) {
  auto task = std::make_shared<Task>();
  task->call = call;
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) throw ShuttingDown("The server is shutting down; no new translations are taken.");
  tasks_.push_back(task);
  wake_.notify_all();
  done_.wait(lock, [&] { return task->done; });
  if (task->error) std::rethrow_exception(task->error);
}

bool Batcher::run_tasks(std::unique_lock<std::mutex>& lock) {
  // Tasks run alone: once every round has ended, on one worker at a time.
  wake_.wait(lock, [&] { return tasks_.empty() || (rounds_running_ == 0 && !task_running_); });
  if (tasks_.empty()) return false;
  task_running_ = true;
  bool any = false;
  while (!tasks_.empty()) {
    auto task = tasks_.front();
    tasks_.pop_front();
    lock.unlock();
    try {
      std::optional<ComputeTurns::Turn> turn;
      if (turns_) turn.emplace(turns_->take());
      task->call();
    } catch (...) {
      task->error = std::current_exception();
    }
    lock.lock();
    task->done = true;
    any = true;
  }
  task_running_ = false;
  done_.notify_all();
  wake_.notify_all();  // rounds may start again
  return any;
}

void Batcher::enqueue_and_wait(const std::shared_ptr<Request>& request, std::vector<Item>& items) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw ShuttingDown("The server is shutting down; no new translations are taken.");
    const auto waiting = static_cast<int64_t>(queue_.size());
    if (waiting + static_cast<int64_t>(items.size()) > options_.queue_sentences) {
      throw QueueFull("The translation queue is full (" + std::to_string(waiting) + " of " +
                      std::to_string(options_.queue_sentences) + " sentences waiting); try again shortly.");
    }
    request->pending = items.size();
    request->queued = items.size();
    ++queued_requests_;
    for (auto& item : items) {
      queued_tokens_ += item.tokens;
      queue_.push_back(std::move(item));
    }
    metrics_.add_queued(static_cast<int64_t>(items.size()));
  }
  wake_.notify_all();  // workers wait on wake_ for different things: tasks, company, work
  std::unique_lock<std::mutex> lock(request->mutex);
  request->done.wait(lock, [&] { return request->pending == 0; });
  if (request->error) std::rethrow_exception(request->error);
}

void Batcher::run() {
  auto free_since = std::chrono::steady_clock::now();
  size_t last_round_requests = 0;
  for (;;) {
    std::vector<Item> round = next_round(free_since, last_round_requests);
    if (round.empty()) return;  // stopping, and nothing is left
    {
      std::optional<ComputeTurns::Turn> turn;
      if (turns_) turn.emplace(turns_->take());
      translate_round(round);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --rounds_running_;
    }
    wake_.notify_all();  // tasks wait for rounds to end
    free_since = std::chrono::steady_clock::now();
  }
}

bool Batcher::budget_full() const {
  return static_cast<int64_t>(queue_.size()) >= options_.round_sentences || queued_tokens_ >= options_.round_tokens;
}

// A worker's next round. Runs pending tasks first (run_tasks). Waits for
// work, then for company until the budget is full, as many requests wait as
// this worker's last round served (the clients it answered, asking again),
// or max_wait_ms have passed since the later of the oldest sentence's
// arrival and the end of its last round; takes the oldest sentences that
// fit, at most its share of the queue among the workers not in a round. A
// lone client is never kept waiting for company that is not coming; a crowd
// is waited for as before.
std::vector<Batcher::Item> Batcher::next_round(std::chrono::steady_clock::time_point free_since,
                                               size_t& last_round_requests) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || !tasks_.empty(); });
    if (!tasks_.empty()) {
      run_tasks(lock);  // or wait while another worker runs them
      continue;
    }
    if (queue_.empty()) return {};  // stopping
    const auto wait = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double, std::milli>(options_.max_wait_ms));
    const size_t company = std::max<size_t>(1, last_round_requests);
    wake_.wait_until(lock, std::max(queue_.front().arrived, free_since) + wait, [&] {
      return stopping_ || budget_full() || queued_requests_ >= company || !tasks_.empty() || queue_.empty();
    });
    // Another worker took the queue meanwhile, or a task came first.
    if (!queue_.empty() && tasks_.empty()) break;
  }
  // With other workers free, only this worker's share of what waits.
  const int64_t free_workers = std::max<int64_t>(1, options_.workers - rounds_running_);
  const auto share = static_cast<int64_t>((queue_.size() + free_workers - 1) / free_workers);
  const int64_t most = std::min(options_.round_sentences, share);
  // The oldest sentence and those after it that are searched the same way
  // (most requests use the server's options; others wait for a round of
  // their own), as long as the budget holds.
  std::vector<Item> round;
  int64_t tokens = 0;
  const decode::SearchOptions search = queue_.front().request->search;
  for (auto it = queue_.begin(); it != queue_.end() && static_cast<int64_t>(round.size()) < most;) {
    if (!(it->request->search == search)) {
      ++it;
      continue;
    }
    if (!round.empty() && tokens + it->tokens > options_.round_tokens) break;
    tokens += it->tokens;
    if (--it->request->queued == 0) --queued_requests_;
    round.push_back(std::move(*it));
    it = queue_.erase(it);
  }
  std::set<const Request*> served;
  for (const auto& item : round) served.insert(item.request.get());
  last_round_requests = served.size();
  ++rounds_running_;
  queued_tokens_ -= tokens;
  metrics_.add_queued(-static_cast<int64_t>(round.size()));
  return round;
}

void Batcher::translate_round(std::vector<Item>& round) {
  std::vector<std::vector<int64_t>> sources, prefixes;
  std::vector<decode::TermConstraints> terms;
  sources.reserve(round.size());
  int64_t source_tokens = 0, target_tokens = 0;
  bool any_prefix = false, any_terms = false;
  for (const auto& item : round) {
    const auto& plan = (*item.request->plans)[item.line];
    sources.push_back(plan.pieces[item.piece]);
    prefixes.push_back(item.piece == 0 ? plan.target_prefix : std::vector<int64_t>{});
    terms.push_back(plan.sources[item.piece].terms);
    any_prefix = any_prefix || !prefixes.back().empty();
    any_terms = any_terms || !terms.back().empty();
    source_tokens += item.tokens;
  }
  if (!any_prefix) prefixes.clear();
  if (!any_terms) terms.clear();
  std::exception_ptr error;
  try {
    // Sentences with terms are searched in batches of their own (Translator::translate_ids).
    auto hypotheses = translator_.translate_ids(sources, prefixes, round.front().request->search, terms);
    for (size_t k = 0; k < round.size(); ++k) {
      if (!hypotheses[k].empty()) target_tokens += static_cast<int64_t>(hypotheses[k].front().tokens.size()) + 1;
      round[k].request->hypotheses[round[k].line][round[k].piece] = std::move(hypotheses[k]);
    }
  } catch (...) {
    error = std::current_exception();
  }
  metrics_.count_round(static_cast<int64_t>(round.size()), source_tokens, target_tokens);
  for (auto& item : round) finish_item(*item.request, error);
}

void Batcher::finish_item(Request& request, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(request.mutex);
  if (error && !request.error) request.error = error;
  if (--request.pending == 0) request.done.notify_all();
}

}  // namespace nmt::serve
