#include "train/progress.h"

#include <algorithm>
#include <cstdio>

namespace nmt::train {
namespace {

// 16.0M, 950.3k, 812
std::string count_text(int64_t n) {
  char buf[32];
  if (n >= 1000000) {
    std::snprintf(buf, sizeof(buf), "%.1fM", static_cast<double>(n) / 1e6);
  } else if (n >= 1000) {
    std::snprintf(buf, sizeof(buf), "%.1fk", static_cast<double>(n) / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(n));
  }
  return buf;
}

std::string duration_text(double seconds) {
  if (seconds < 0 || seconds > 1e7) return "?";
  const long s = static_cast<long>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

}  // namespace

Progress::Progress(std::shared_ptr<spdlog::logger> logger, bool terminal)
    : logger_(std::move(logger)), terminal_(terminal) {}

std::string Progress::format(const ProgressSnapshot& s) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int64_t done = s.step - first_step_;
  double eta = -1;
  if (s.total_steps > 0 && done > 0) eta = elapsed / done * static_cast<double>(s.total_steps - s.step);
  if (s.seconds_left >= 0 && (eta < 0 || s.seconds_left < eta)) eta = s.seconds_left;
  const int64_t tokens_done = s.target_tokens - first_tokens_;
  if (s.max_target_tokens > 0 && tokens_done > 0) {
    const double by_tokens = elapsed / static_cast<double>(tokens_done) *
                             static_cast<double>(std::max<int64_t>(0, s.max_target_tokens - s.target_tokens));
    if (eta < 0 || by_tokens < eta) eta = by_tokens;
  }
  std::string tokens = count_text(s.target_tokens);
  if (s.max_target_tokens > 0) tokens += "/" + count_text(s.max_target_tokens);
  char buf[320];
  std::snprintf(buf, sizeof(buf), "step %lld%s%s | epoch %lld | tokens %s | loss %.4f | lr %.3g | %.0f tok/s | ETA %s",
                static_cast<long long>(s.step), s.total_steps > 0 ? "/" : "",
                s.total_steps > 0 ? std::to_string(s.total_steps).c_str() : "", static_cast<long long>(s.epoch + 1),
                tokens.c_str(), s.loss, s.lr, s.tokens_per_s, duration_text(eta).c_str());
  return buf;
}

void Progress::update(const ProgressSnapshot& s, bool log_line) {
  if (first_step_ < 0) {
    first_step_ = s.step - 1;
    first_tokens_ = s.target_tokens;
    start_ = std::chrono::steady_clock::now();
  }
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s", format(s).c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
  if (log_line) {
    clear();
    logger_->info(format(s));
  }
}

void Progress::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace nmt::train
