#include "train/progress.h"

#include <cstdio>

namespace nmt::train {
namespace {

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
  char buf[256];
  std::snprintf(buf, sizeof(buf), "step %lld%s%s | epoch %lld | loss %.4f | lr %.3g | %.0f tok/s | ETA %s",
                static_cast<long long>(s.step), s.total_steps > 0 ? "/" : "",
                s.total_steps > 0 ? std::to_string(s.total_steps).c_str() : "", static_cast<long long>(s.epoch + 1),
                s.loss, s.lr, s.tokens_per_s, duration_text(eta).c_str());
  return buf;
}

void Progress::update(const ProgressSnapshot& s, bool log_line) {
  if (first_step_ < 0) {
    first_step_ = s.step - 1;
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
