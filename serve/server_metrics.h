// What the server counts, exposed as Prometheus text on GET /metrics:
// requests by route and status, sentences found (and split to fit the
// model), sources and tokens translated, the queue, round sizes and request
// latency as histograms.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "decode/checked_translation.h"

namespace nmt::serve {

// A Prometheus histogram with fixed upper bounds (cumulative on output).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // `name`_bucket{le=...}, `name`_sum and `name`_count lines.
  std::string text(const std::string& name) const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::vector<uint64_t> counts_;  // per bound, plus one for +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

class ServerMetrics {
 public:
  ServerMetrics();
  void count_request(const std::string& route, int status, double seconds);
  // `sentences`: sources translated together (sentences and pieces of long ones).
  void count_round(int64_t sentences, int64_t source_tokens, int64_t target_tokens);
  // Sentences of a request's texts, and how many of them were too long for the model.
  void count_sentences(int64_t sentences, int64_t long_sentences);
  // What the coverage check of a request's pieces found.
  void count_coverage(const decode::CoverageTally& tally);
  // Sentences joining (+) or leaving (-) a batcher's queue; the gauge sums every model's.
  void add_queued(int64_t sentences) { queue_sentences_ += sentences; }
  void set_ready(bool ready) { ready_ = ready; }
  std::string prometheus_text() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;  // (route, status) -> count
  std::atomic<uint64_t> sentences_{0}, source_tokens_{0}, target_tokens_{0}, rounds_{0};
  std::atomic<uint64_t> request_sentences_{0}, long_sentences_{0};
  std::atomic<uint64_t> resplit_pieces_{0}, uncovered_pieces_{0}, length_limited_pieces_{0};
  std::atomic<int64_t> queue_sentences_{0};
  std::atomic<bool> ready_{false};
  Histogram latency_, round_sentences_;
};

}  // namespace nmt::serve
