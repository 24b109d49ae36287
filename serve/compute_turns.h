// Several models in one server share the machine's cores by taking turns:
// each model's batcher runs a round (or an alignment pass) only while it
// holds the turn, first come first served, and the round uses every intra-op
// thread (--threads). So N models never run N x --threads threads at once,
// and a busy model cannot starve a quiet one: a waiting batcher gets the
// next turn after the round in progress.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace nmt::serve {

class ComputeTurns {
 public:
  // Held for one round; the next batcher in line runs when it is destroyed.
  class Turn {
   public:
    explicit Turn(ComputeTurns* turns) : turns_(turns) {}
    Turn(Turn&& other) noexcept : turns_(other.turns_) { other.turns_ = nullptr; }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    Turn& operator=(Turn&&) = delete;
    ~Turn() {
      if (turns_) turns_->release();
    }

   private:
    ComputeTurns* turns_;
  };

  // Blocks until every batcher that asked before has had its turn.
  Turn take() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t ticket = next_ticket_++;
    turn_.wait(lock, [&] { return serving_ == ticket; });
    return Turn(this);
  }

 private:
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++serving_;
    }
    turn_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable turn_;
  uint64_t next_ticket_ = 0, serving_ = 0;
};

}  // namespace nmt::serve
