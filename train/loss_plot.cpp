#include "train/loss_plot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace nmt::train {
namespace {

constexpr double kWidth = 760, kLeft = 60, kRight = 60;

// A panel's plot area, its x range (steps) and its two vertical axes.
struct Frame {
  double top = 0, bottom = 0;  // pixels
  double max_step = 1;
  double left_max = 1, right_max = 100;
  std::string left_label, right_label;  // right_label empty: no right axis
};

struct Series {
  std::string name, colour;
  std::vector<std::pair<double, double>> points;
  bool right_axis = false;
  bool markers = false;  // dots (the final validation's few points) instead of a line
  bool dashed = false;
};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

std::pair<double, double> to_pixels(const Frame& f, double x, double y, double y_max) {
  return {kLeft + (kWidth - kLeft - kRight) * x / f.max_step,
          f.bottom - (f.bottom - f.top) * std::clamp(y / y_max, 0.0, 1.0)};
}

std::string draw(const Series& s, const Frame& f) {
  const double y_max = s.right_axis ? f.right_max : f.left_max;
  std::ostringstream out;
  if (s.markers) {
    for (const auto& [x, y] : s.points) {
      const auto [px, py] = to_pixels(f, x, y, y_max);
      out << "<circle cx=\"" << fmt(px) << "\" cy=\"" << fmt(py) << "\" r=\"4\" fill=\"" << s.colour << "\"/>\n";
    }
    return out.str();
  }
  out << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.5\""
      << (s.dashed ? " stroke-dasharray=\"6 3\"" : "") << " points=\"";
  for (const auto& [x, y] : s.points) {
    const auto [px, py] = to_pixels(f, x, y, y_max);
    out << fmt(px) << "," << fmt(py) << " ";
  }
  out << "\"/>\n";
  return out.str();
}

std::string vertical_label(double x, double y, int angle, const std::string& text) {
  std::ostringstream out;
  out << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"12\" transform=\"rotate(" << angle << " " << x << " "
      << y << ")\" text-anchor=\"middle\">" << text << "</text>\n";
  return out.str();
}

std::string axes(const Frame& f) {
  std::ostringstream out;
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = f.bottom, y1 = f.top;
  const bool right = !f.right_label.empty();
  out << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x1 << "\" y2=\"" << y0 << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x0 << "\" y2=\"" << y1 << "\" stroke=\"black\"/>\n";
  if (right)
    out << "<line x1=\"" << x1 << "\" y1=\"" << y0 << "\" x2=\"" << x1 << "\" y2=\"" << y1 << "\" stroke=\"#888\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double frac = i / 4.0, y = y0 - (y0 - y1) * frac;
    out << "<text x=\"" << x0 - 6 << "\" y=\"" << y + 4 << "\" font-size=\"11\" text-anchor=\"end\">"
        << fmt(f.left_max * frac) << "</text>\n"
        << "<text x=\"" << x0 + (x1 - x0) * frac << "\" y=\"" << y0 + 18
        << "\" font-size=\"11\" text-anchor=\"middle\">" << fmt(f.max_step * frac) << "</text>\n";
    if (right)
      out << "<text x=\"" << x1 + 6 << "\" y=\"" << y + 4 << "\" font-size=\"11\">" << fmt(f.right_max * frac)
          << "</text>\n";
  }
  out << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << y0 + 36
      << "\" font-size=\"12\" text-anchor=\"middle\">step</text>\n"
      << vertical_label(14, (y0 + y1) / 2, -90, f.left_label);
  if (right) out << vertical_label(kWidth - 12, (y0 + y1) / 2, 90, f.right_label);
  return out.str();
}

// The panel's axes, its series and a legend row above it.
std::string panel(const Frame& f, const std::vector<Series>& series) {
  std::ostringstream out;
  out << axes(f);
  double legend_x = kLeft + 10;
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    out << draw(s, f) << "<rect x=\"" << legend_x << "\" y=\"" << f.top - 26 << "\" width=\"12\" height=\"4\" fill=\""
        << s.colour << "\"/>"
        << "<text x=\"" << legend_x + 16 << "\" y=\"" << f.top - 20 << "\" font-size=\"12\">" << s.name << "</text>\n";
    legend_x += 140;
  }
  return out.str();
}

// Appends (step, line[key]) to `s` when the line has that number.
void collect(Series& s, const nlohmann::json& line, const char* key, double step) {
  auto it = line.find(key);
  if (it != line.end() && it->is_number()) s.points.emplace_back(step, it->get<double>());
}

double largest(const std::vector<Series>& series, double floor) {
  for (const auto& s : series) {
    if (s.right_axis) continue;
    for (const auto& p : s.points) floor = std::max(floor, p.second);
  }
  return floor;
}

}  // namespace

std::string render_training_svg(const std::vector<nlohmann::json>& lines) {
  std::vector<Series> quality = {{"train loss", "#1f77b4", {}},
                                 {"valid loss", "#ff7f0e", {}},
                                 {"valid BLEU", "#2ca02c", {}, true},
                                 {"final BLEU", "#d62728", {}, true, true}};
  std::vector<Series> memory = {{"resident MiB", "#9467bd", {}},
                                {"peak resident MiB", "#8c564b", {}, false, false, true}};
  double max_step = 1;
  for (const auto& j : lines) {
    const double step = j.value("step", 0.0);
    max_step = std::max(max_step, step);
    collect(quality[0], j, "loss", step);
    collect(quality[1], j, "valid_loss", step);
    collect(quality[2], j, "valid_bleu", step);
    collect(quality[3], j, "final_bleu", step);
    collect(memory[0], j, "rss_mib", step);
    collect(memory[1], j, "peak_rss_mib", step);
  }
  const Frame quality_frame{40, 370, max_step, largest(quality, 1e-9), 100, "loss", "BLEU"};
  const bool with_memory = !memory[0].points.empty();
  // Memory from 0, so that a flat line looks flat and growth looks like growth.
  const Frame memory_frame{460, 640, max_step, largest(memory, 1.0) * 1.1, 1, "resident memory (MiB)", ""};
  const double height = with_memory ? 700 : 420;
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << height << "\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << panel(quality_frame, quality);
  if (with_memory) out << panel(memory_frame, memory);
  out << "</svg>\n";
  return out.str();
}

}  // namespace nmt::train
