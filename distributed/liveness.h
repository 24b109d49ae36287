// Heartbeats through the job's store, so that a rank that dies or whose host
// stops answering is noticed within a bounded time and named, instead of the
// others hanging in a collective until Gloo's timeout.
//
// Every rank adds to "alive/<rank>" each second from a thread of its own and
// watches the others' counters. A rank whose counter stands still for the
// timeout (and that has not said it finished) ends this process with a
// message naming it; so does losing the store itself (it lives in rank 0, or
// in torchrun's agent).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

namespace nmt::distributed {

class Liveness {
 public:
  // `store` must be a client of its own: this thread is its only user.
  // A rank silent for `timeout` is taken for dead; one that has not beaten
  // yet (still starting, with torchrun's store nobody waits for everyone)
  // gets `arrival_timeout` from now.
  Liveness(c10::intrusive_ptr<c10d::Store> store, int rank, int world_size, std::chrono::seconds timeout,
           std::chrono::seconds arrival_timeout, std::string store_name);
  ~Liveness();
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;

  // This rank is about to end on purpose, with the others (the last
  // barrier): from now on the store may go away with rank 0 without that
  // being an error. Heartbeats go on until finish().
  void leaving();

  // Records that this rank ends on purpose (finished, or stopped by an error
  // it reports itself), then stops beating and watching. Rank 0, which holds
  // the store, waits a little for the other ranks' own reports first, so
  // that theirs name the cause rather than the store going away.
  void finish(const std::string& error_message = "");

  // After a collective failed: which ranks look gone, judged over a few
  // heartbeats, with the error a rank reported, if any. "" when all beat, or
  // once this rank has stopped watching.
  std::string suspects();

 private:
  void run();
  void beat_and_watch();
  void watch(int rank, std::chrono::steady_clock::time_point now);
  void wait_for_the_others_reports();
  [[noreturn]] void die(const std::string& message) const;

  c10::intrusive_ptr<c10d::Store> store_;
  const int rank_, world_size_;
  const std::chrono::seconds timeout_, arrival_timeout_;
  const std::string store_name_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool leaving_ = false;
  std::vector<int64_t> beats_;  // last counter seen per rank
  std::vector<std::chrono::steady_clock::time_point> changed_;  // when it last moved
  std::vector<bool> finished_;
  std::vector<std::string> errors_;  // what a finished rank reported
  std::vector<std::chrono::steady_clock::time_point> reported_;  // when its error was first seen
  std::string store_error_;
  std::thread thread_;
};

}  // namespace nmt::distributed
