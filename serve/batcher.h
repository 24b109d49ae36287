// Batching across requests. HTTP threads plan their lines (split into
// sentences and pieces that fit the model, and encoded) and wait; a worker
// thread gathers the pieces of all pending requests into a round,
// oldest first, up to a budget (sentences and source tokens) or until it has
// waited a few milliseconds for company, translates the round as the command
// line translates a file (sorted by length into batches of the translator's
// batch size) and hands each request its results. A request larger than a
// round is spread over several; requests with search options of their own
// share rounds only with requests that ask the same. Translation does not depend on what shares a
// batch (padding is masked), so batching never changes a result.
//
// Why rounds and not one batch at a time: with many clients each waiting for
// its answer before it asks again, a worker that takes one batch while the
// next one queues splits the clients into groups that never meet again, and
// each batch holds sentences of every length, so it decodes as long as its
// longest. A round takes everyone who is waiting, and the worker, once free,
// waits up to the same few milliseconds for the clients it has just answered
// (as many requests as that round served), so the length sort has the whole
// crowd to choose from, while a lone client is answered without a wait.
//
// Several workers (BatcherOptions::workers) decode rounds at once, each on
// its own core with one intra-op thread, as CTranslate2's inter_threads do:
// two users each get a core and neither waits for the other's sentence (one
// worker splitting each product over two cores answered two users in 6.49
// ms median, one worker on one core in 4.70: bench/two_users.py,
// docs/performance.md). A worker that forms a round while others are free
// takes only its share of what waits, so one large request still uses every
// core. What runs on the workers between rounds (run_on_worker) runs while
// no round does.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "decode/translation.h"
#include "serve/compute_turns.h"
#include "serve/server_metrics.h"

namespace nmt::serve {

struct BatcherOptions {
  int64_t round_sentences = 256;   // sentences gathered into one round at most
  int64_t round_tokens = 8192;     // source tokens gathered into one round at most (one longer sentence still goes)
  double max_wait_ms = 5;          // how long a round waits for company once the worker is free and work waits
  int64_t queue_sentences = 4096;  // sentences waiting at most; a request that does not fit is refused
  // Rounds decoded at once; above 1, each worker decodes on one thread. 0:
  // ServedModels picks (workers_for), a bare Batcher takes 1.
  int64_t workers = 0;
  void validate() const;           // UsageError naming the option
};

// Thrown by Batcher::translate when the queue cannot take the request (429).
class QueueFull : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by Batcher::translate after stop() (503).
class ShuttingDown : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Batcher {
 public:
  // `translator`, `metrics` and `turns` must outlive the batcher; the workers
  // start here, each on the creating thread's intra-op thread count (one
  // worker) or on one thread (several). With `turns`, every round and task
  // waits for its turn on the cores that other batchers share
  // (compute_turns.h).
  Batcher(decode::Translator& translator, BatcherOptions options, ServerMetrics& metrics,
          ComputeTurns* turns = nullptr);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Translates `lines` in order, blocking the caller. Empty and invalid lines
  // are answered without the model. Throws QueueFull when the queue cannot
  // take all of their pieces, and rethrows what translating threw.
  std::vector<decode::LineTranslation> translate(const std::vector<std::string>& lines);
  // The same for lines planned already: hypotheses per plan, per piece.
  std::vector<std::vector<std::vector<decode::Hypothesis>>> translate_plans(const std::vector<decode::LinePlan>& plans);
  // The same searched with `search` instead of the translator's options (a
  // request's own; UsageError when they are invalid). Each plan's target
  // prefix leads the translation of its first piece.
  std::vector<std::vector<std::vector<decode::Hypothesis>>> translate_plans(const std::vector<decode::LinePlan>& plans,
                                                                            const decode::SearchOptions& search);
  // Planned lines translated and checked for coverage (Translator::translate_checked):
  // pieces that fail are split and translated again in later rounds of this
  // batcher; the plans change where that helped; /metrics counts the checks;
  // unknown tokens are copied on the worker.
  std::vector<std::vector<std::vector<decode::Hypothesis>>> translate_checked(std::vector<decode::LinePlan>& plans,
                                                                              const decode::SearchOptions& search);
  // Runs `call` on a worker thread while no round runs, blocking the caller:
  // what else uses the model (the alignment passes of HTML and of the page's
  // word links) must not run beside a round.
  void run_on_worker(const std::function<void()>& call);

  decode::Translator& translator() { return translator_; }

  // Translates what is queued, then ends the workers; later calls throw.
  void stop();

 private:
  struct Request;
  struct Item {
    std::shared_ptr<Request> request;
    size_t line, piece;  // into the request's plans
    int64_t tokens;  // source tokens
    std::chrono::steady_clock::time_point arrived;
  };

  struct Task;
  void enqueue_and_wait(const std::shared_ptr<Request>& request, std::vector<Item>& items);
  bool run_tasks(std::unique_lock<std::mutex>& lock);  // true when it ran any
  void log_long_sentences(int64_t count);
  // A worker's loop: `free_since` when it finished its last round,
  // `last_round_requests` the requests that round served (the company the
  // next one waits for).
  void run();
  std::vector<Item> next_round(std::chrono::steady_clock::time_point free_since, size_t& last_round_requests);
  bool budget_full() const;  // with mutex_ held
  void translate_round(std::vector<Item>& round);
  static void finish_item(Request& request, std::exception_ptr error);

  decode::Translator& translator_;
  BatcherOptions options_;
  ServerMetrics& metrics_;
  ComputeTurns* turns_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;  // done_: a task has run
  std::deque<Item> queue_;
  std::deque<std::shared_ptr<Task>> tasks_;
  int64_t queued_tokens_ = 0;
  size_t queued_requests_ = 0;  // requests with sentences in the queue
  int64_t rounds_running_ = 0;  // rounds being translated now
  bool task_running_ = false;   // a worker runs tasks_ (no round starts meanwhile)
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::mutex log_mutex_;
  int64_t long_sentences_unlogged_ = 0;
  std::chrono::steady_clock::time_point last_long_log_;
};

}  // namespace nmt::serve
