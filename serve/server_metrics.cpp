#include "serve/server_metrics.h"

#include <spdlog/fmt/fmt.h>

namespace nmt::serve {
namespace {

std::string number(double v) { return fmt::format("{}", v); }

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

std::string Histogram::text(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, number(bounds_[i]), cumulative);
  }
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, count_);
  out += fmt::format("{}_sum {}\n{}_count {}\n", name, number(sum_), name, count_);
  return out;
}

ServerMetrics::ServerMetrics()
    : latency_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}),
      round_sentences_({1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}) {}

void ServerMetrics::count_request(const std::string& route, int status, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_[{route, status}];
  }
  latency_.observe(seconds);
}

void ServerMetrics::count_round(int64_t sentences, int64_t source_tokens, int64_t target_tokens) {
  sentences_ += static_cast<uint64_t>(sentences);
  source_tokens_ += static_cast<uint64_t>(source_tokens);
  target_tokens_ += static_cast<uint64_t>(target_tokens);
  ++rounds_;
  round_sentences_.observe(static_cast<double>(sentences));
}

void ServerMetrics::count_sentences(int64_t sentences, int64_t long_sentences) {
  request_sentences_ += static_cast<uint64_t>(sentences);
  long_sentences_ += static_cast<uint64_t>(long_sentences);
}

void ServerMetrics::count_coverage(const decode::CoverageTally& tally) {
  resplit_pieces_ += static_cast<uint64_t>(tally.resplit_pieces);
  uncovered_pieces_ += static_cast<uint64_t>(tally.uncovered_pieces);
  length_limited_pieces_ += static_cast<uint64_t>(tally.length_limited);
}

std::string ServerMetrics::prometheus_text() const {
  std::string out;
  header(out, "nmt_requests_total", "counter", "HTTP requests answered, by route and status code.");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [key, count] : requests_) {
      out += fmt::format("nmt_requests_total{{route=\"{}\",code=\"{}\"}} {}\n", key.first, key.second, count);
    }
  }
  header(out, "nmt_request_sentences_total", "counter", "Sentences found in the requests' texts (by ICU's rules).");
  out += fmt::format("nmt_request_sentences_total {}\n", request_sentences_.load());
  header(out, "nmt_long_sentences_total", "counter",
         "Sentences longer than the model takes, split at their best boundaries and translated in pieces.");
  out += fmt::format("nmt_long_sentences_total {}\n", long_sentences_.load());
  header(out, "nmt_resplit_pieces_total", "counter",
         "Pieces whose translation left source words unattended, split further and translated again.");
  out += fmt::format("nmt_resplit_pieces_total {}\n", resplit_pieces_.load());
  header(out, "nmt_uncovered_pieces_total", "counter",
         "Pieces whose translation still left source words unattended (or was far too short) after the retries.");
  out += fmt::format("nmt_uncovered_pieces_total {}\n", uncovered_pieces_.load());
  header(out, "nmt_length_limited_pieces_total", "counter", "Pieces whose translation stopped at its length limit.");
  out += fmt::format("nmt_length_limited_pieces_total {}\n", length_limited_pieces_.load());
  header(out, "nmt_sentences_total", "counter",
         "Sources translated by the model: sentences, and the pieces of long ones (empty lines not counted).");
  out += fmt::format("nmt_sentences_total {}\n", sentences_.load());
  header(out, "nmt_source_tokens_total", "counter", "Source subword tokens translated.");
  out += fmt::format("nmt_source_tokens_total {}\n", source_tokens_.load());
  header(out, "nmt_target_tokens_total", "counter", "Target subword tokens produced (best hypotheses, eos included).");
  out += fmt::format("nmt_target_tokens_total {}\n", target_tokens_.load());
  header(out, "nmt_rounds_total", "counter", "Rounds decoded (sentences of pending requests translated together).");
  out += fmt::format("nmt_rounds_total {}\n", rounds_.load());
  header(out, "nmt_queue_sentences", "gauge", "Sentences waiting for a round.");
  out += fmt::format("nmt_queue_sentences {}\n", queue_sentences_.load());
  header(out, "nmt_ready", "gauge", "1 once the model is loaded and requests are served.");
  out += fmt::format("nmt_ready {}\n", ready_.load() ? 1 : 0);
  header(out, "nmt_round_sentences", "histogram", "Sentences per round.");
  out += round_sentences_.text("nmt_round_sentences");
  header(out, "nmt_request_duration_seconds", "histogram", "Time from a request's arrival to its answer.");
  out += latency_.text("nmt_request_duration_seconds");
  return out;
}

}  // namespace nmt::serve
