#include "train/metrics_log.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "train/loss_plot.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::train {

MetricsLog::MetricsLog(const std::string& path, const std::string& svg_path, int64_t resume_step)
    : path_(path), svg_path_(svg_path) {
  if (resume_step >= 0 && std::filesystem::exists(path)) {
    std::ifstream in(path);
    std::string text;
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded() || j.value("step", int64_t{0}) > resume_step) continue;
      lines_.push_back(j);
      text += j.dump() + "\n";
    }
    write_file_atomically(path, text);
  }
  out_.open(path, resume_step >= 0 ? std::ios::app : std::ios::trunc);
  if (!out_) throw Error("Cannot write " + path + ".", kExitOther);
}

void MetricsLog::write(const nlohmann::json& line) {
  out_ << line.dump() << "\n";
  out_.flush();
  if (!out_) {
    throw Error("Cannot write " + path_ + ": " + std::strerror(errno) + " (disk full or over a file size limit?).",
                kExitOther);
  }
  lines_.push_back(line);
}

void MetricsLog::update_plot() const { write_file_atomically(svg_path_, render_training_svg(lines_)); }

}  // namespace nmt::train
