#include "distributed/liveness.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "util/error.h"

namespace nmt::distributed {
namespace {

constexpr auto kBeat = std::chrono::seconds(1);
// A rank that reported an error has left; its peers' collectives usually
// fail at once and say so. Where they would not (Gloo's set-up waits on the
// store, NCCL may not notice), this ends them.
constexpr auto kAfterAPeersError = std::chrono::seconds(10);
// How long rank 0 keeps the store up after its own error for the others to report.
constexpr auto kReportWait = std::chrono::seconds(6);

std::string alive_key(int rank) { return "alive/" + std::to_string(rank); }
std::string done_key(int rank) { return "done/" + std::to_string(rank); }

}  // namespace

Liveness::Liveness(c10::intrusive_ptr<c10d::Store> store, int rank, int world_size, std::chrono::seconds timeout,
                   std::chrono::seconds arrival_timeout, std::string store_name)
    : store_(std::move(store)),
      rank_(rank),
      world_size_(world_size),
      timeout_(timeout),
      arrival_timeout_(arrival_timeout),
      store_name_(std::move(store_name)),
      beats_(static_cast<size_t>(world_size), -1),
      changed_(static_cast<size_t>(world_size), std::chrono::steady_clock::now()),
      finished_(static_cast<size_t>(world_size), false),
      errors_(static_cast<size_t>(world_size)),
      reported_(static_cast<size_t>(world_size)) {
  thread_ = std::thread([this] { run(); });
}

Liveness::~Liveness() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Liveness::leaving() {
  std::lock_guard<std::mutex> lock(mutex_);
  leaving_ = true;
}

void Liveness::finish(const std::string& error_message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  try {
    // One line: LibTorch's messages carry a backtrace after the first.
    const std::string text =
        error_message.empty() ? "finished" : "error: " + error_message.substr(0, error_message.find('\n'));
    store_->set(done_key(rank_), std::vector<uint8_t>(text.begin(), text.end()));
    if (!error_message.empty() && rank_ == 0) wait_for_the_others_reports();
  } catch (const std::exception&) {
    // The store is gone with rank 0: nobody is left to tell.
  }
}

void Liveness::wait_for_the_others_reports() {
  const auto until = std::chrono::steady_clock::now() + kReportWait;
  for (int r = 1; r < world_size_; ++r) {
    while (!store_->check({done_key(r)}) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

void Liveness::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    beat_and_watch();
    lock.lock();
    wake_.wait_for(lock, kBeat, [this] { return stopping_; });
  }
}

void Liveness::beat_and_watch() {
  const auto now = std::chrono::steady_clock::now();
  try {
    store_->add(alive_key(rank_), 1);
    for (int r = 0; r < world_size_; ++r) {
      if (r != rank_) watch(r, now);
    }
  } catch (const std::exception& e) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ || leaving_) return;  // the job is ending and the store may leave first
    }
    die(fmt::format("lost the job's store at {}: {} has stopped. Stopping rank {}; resume the job with --resume.",
                    store_name_, rank_ == 0 ? "it" : "rank 0 (or torchrun's agent, which holds it)", rank_));
  }
}

// One peer: has its counter moved since the last look? If not, has it said
// it ended (and how)? Silent for the timeout, or failed a while ago: the end.
void Liveness::watch(int r, std::chrono::steady_clock::time_point now) {
  const auto i = static_cast<size_t>(r);
  const int64_t beats = store_->add(alive_key(r), 0);
  std::unique_lock<std::mutex> lock(mutex_);
  if (beats != beats_[i]) {
    beats_[i] = beats;
    changed_[i] = now;
    return;
  }
  if (finished_[i] && errors_[i].empty()) return;
  lock.unlock();
  // A quiet rank may have ended on purpose: only then is its "done" key
  // worth a look (a store read per rank and second at most).
  std::string report;
  const bool done = store_->check({done_key(r)});
  if (done) {
    const auto bytes = store_->get(done_key(r));
    report = std::string(bytes.begin(), bytes.end());
  }
  lock.lock();
  finished_[i] = done;
  const bool failed = report.rfind("error: ", 0) == 0;
  if (failed && errors_[i].empty()) reported_[i] = now;
  errors_[i] = failed ? report.substr(7) : std::string();
  if (leaving_) return;
  if (failed && now - reported_[i] > kAfterAPeersError) {
    die(fmt::format("rank {} failed: {}. Stopping rank {} too.", r, errors_[i], rank_));
  }
  const bool arrived = beats > 0;
  if (!done && now - changed_[i] > (arrived ? timeout_ : arrival_timeout_)) {
    die(arrived ? fmt::format("rank {} has not been heard from for {} s: its process or its host has stopped. "
                              "Stopping rank {} too; resume the job with --resume.",
                              r, timeout_.count(), rank_)
                : fmt::format("rank {} did not join the job within {} s. Stopping rank {}.", r,
                              arrival_timeout_.count(), rank_));
  }
}

// From the watching thread the main thread may be blocked in a collective that
// will never finish; checkpoints are written atomically, so ending here loses
// nothing that a resume needs.
void Liveness::die(const std::string& message) const {
  const std::string line = "trainer: error: " + message + "\n";
  ssize_t ignored = ::write(2, line.data(), line.size());
  (void)ignored;
  ::_exit(kExitOther);
}

std::string Liveness::suspects() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return "";  // nothing watched any more: no judgement to give
  }
  // A rank may have beaten once more just before it died, and this thread
  // may see that beat only after the failure: take the counters one beat
  // later, then give every live rank a few beats to move them.
  std::this_thread::sleep_for(kBeat + std::chrono::milliseconds(300));
  std::vector<int64_t> before;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    before = beats_;
  }
  std::this_thread::sleep_for(2 * kBeat + std::chrono::milliseconds(500));
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (int r = 0; r < world_size_; ++r) {
    const auto i = static_cast<size_t>(r);
    if (r == rank_) continue;
    std::string why;
    if (!errors_[i].empty()) {
      why = fmt::format("rank {} failed: {}", r, errors_[i]);
    } else if (!finished_[i] && beats_[i] == before[i]) {
      why = fmt::format("rank {} has stopped (no heartbeat since the failure)", r);
    }
    if (!why.empty()) out += (out.empty() ? "" : "; ") + why;
  }
  return out;
}

}  // namespace nmt::distributed
