#include "data/encoding_pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "data/parallel_reader.h"
#include "util/random.h"
#include "vocab/vocab.h"

namespace nmt::data {
namespace {

constexpr size_t kChunkPairs = 8192;  // text held per chunk: a few MB at most

std::string_view trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Pairs with a side over the byte limit are not kept; their line numbers go with the chunk.
bool read_chunk(ParallelReader& reader, EncodedChunk& chunk) {
  chunk.text.clear();
  chunk.bounds.clear();
  chunk.over_byte_limit.clear();
  std::string_view src, tgt;
  while (chunk.size() < kChunkPairs && reader.next(src, tgt)) {
    if (reader.skipped()) {
      chunk.over_byte_limit.push_back(reader.line_number());
      continue;
    }
    for (std::string_view side : {src, tgt}) {
      chunk.bounds.push_back(chunk.text.size());
      chunk.text.append(side);
      chunk.bounds.push_back(chunk.text.size());
    }
  }
  return chunk.size() > 0 || !chunk.over_byte_limit.empty();
}

void encode_chunk(EncodedChunk& chunk, const vocab::Vocab& sv, const vocab::Vocab& tv) {
  const size_t n = chunk.size();
  chunk.src_ids.resize(n);
  chunk.tgt_ids.resize(n);
  chunk.fingerprints.resize(n);
  chunk.identical.resize(n);
  const std::hash<std::string_view> hash;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view s = chunk.src(i), t = chunk.tgt(i);
    sv.encode_into(s, chunk.src_ids[i]);
    tv.encode_into(t, chunk.tgt_ids[i]);
    chunk.fingerprints[i] = mix64(hash(s) ^ mix64(hash(t) + kGoldenGamma));
    chunk.identical[i] = trimmed(s) == trimmed(t);
  }
}

// The chunks in flight and who may touch which.
class Pipeline {
 public:
  Pipeline(ParallelReader& reader, const vocab::Vocab& sv, const vocab::Vocab& tv,
           int threads)
      : reader_(reader), sv_(sv), tv_(tv), encoders_(std::max(1, threads)), chunks_(encoders_ + 2),
        state_(chunks_.size(), kFree), seq_(chunks_.size(), 0) {}

  void run(const std::function<void(const EncodedChunk&)>& consume) {
    std::vector<std::thread> threads;
    // A thread that cannot start (a thread limit) stops the others, which are joined before the error goes on.
    guarded([&] {
      threads.emplace_back([this] { guarded([this] { read_all(); }); });
      for (int e = 0; e < encoders_; ++e) threads.emplace_back([this] { guarded([this] { encode_all(); }); });
    });
    guarded([&] { consume_all(consume); });
    for (auto& t : threads) t.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  enum State { kFree, kReading, kRead, kEncoding, kEncoded };

  void guarded(const std::function<void()>& work) {
    try {
      work();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      stop_ = true;
      changed_.notify_all();
    }
  }

  void read_all() {
    while (true) {
      size_t slot = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || free_slot(slot); });
        if (stop_) return;
        state_[slot] = kReading;
      }
      const bool got = read_chunk(reader_, chunks_[slot]);
      std::lock_guard<std::mutex> lock(mutex_);
      if (!got) {
        state_[slot] = kFree;
        read_done_ = true;
        changed_.notify_all();
        return;
      }
      seq_[slot] = read_count_++;
      state_[slot] = kRead;
      to_encode_.push_back(slot);
      changed_.notify_all();
    }
  }

  void encode_all() {
    while (true) {
      size_t slot;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || !to_encode_.empty() || read_done_; });
        if (stop_ || to_encode_.empty()) return;
        slot = to_encode_.front();
        to_encode_.pop_front();
        state_[slot] = kEncoding;
      }
      encode_chunk(chunks_[slot], sv_, tv_);
      std::lock_guard<std::mutex> lock(mutex_);
      state_[slot] = kEncoded;
      changed_.notify_all();
    }
  }

  void consume_all(const std::function<void(const EncodedChunk&)>& consume) {
    for (int64_t next = 0;; ++next) {
      size_t slot = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || encoded_slot(next, slot) || (read_done_ && next == read_count_); });
        if (stop_ || !encoded_slot(next, slot)) return;
      }
      consume(chunks_[slot]);
      std::lock_guard<std::mutex> lock(mutex_);
      state_[slot] = kFree;
      changed_.notify_all();
    }
  }

  bool free_slot(size_t& slot) const {
    for (size_t s = 0; s < state_.size(); ++s) {
      if (state_[s] == kFree) return (slot = s), true;
    }
    return false;
  }

  bool encoded_slot(int64_t seq, size_t& slot) const {
    for (size_t s = 0; s < state_.size(); ++s) {
      if (state_[s] == kEncoded && seq_[s] == seq) return (slot = s), true;
    }
    return false;
  }

  ParallelReader& reader_;
  const vocab::Vocab& sv_;
  const vocab::Vocab& tv_;
  const int encoders_;
  std::vector<EncodedChunk> chunks_;
  std::vector<State> state_;
  std::vector<int64_t> seq_;
  std::deque<size_t> to_encode_;
  int64_t read_count_ = 0;
  bool read_done_ = false, stop_ = false;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace

void encode_in_order(ParallelReader& reader, const vocab::Vocab& src_vocab,
                     const vocab::Vocab& tgt_vocab, int threads,
                     const std::function<void(const EncodedChunk&)>& consume) {
  Pipeline(reader, src_vocab, tgt_vocab, threads).run(consume);
}

}  // namespace nmt::data
