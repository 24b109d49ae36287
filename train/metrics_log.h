// DIR/metrics.jsonl: one JSON object per line, flushed as written, plus an SVG
// picture of the curves kept up to date beside it.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nmt::train {

class MetricsLog {
 public:
  // Opens for appending. When resuming from `resume_step`, lines of steps
  // after it (written after that checkpoint, before a crash) are dropped so the
  // file reads as one uninterrupted run. `resume_step` < 0 starts afresh.
  MetricsLog(const std::string& path, const std::string& svg_path, int64_t resume_step);

  void write(const nlohmann::json& line);
  // Redraws the SVG from every line so far (cheap: a few thousand points).
  void update_plot() const;

 private:
  std::string path_, svg_path_;
  std::ofstream out_;
  std::vector<nlohmann::json> lines_;
};

}  // namespace nmt::train
