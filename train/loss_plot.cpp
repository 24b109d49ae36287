#include "train/loss_plot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace nmt::train {
namespace {

constexpr double kWidth = 760, kHeight = 420, kLeft = 60, kRight = 60, kTop = 40, kBottom = 50;

struct Series {
  std::string name, colour;
  std::vector<std::pair<double, double>> points;
  bool right_axis = false;
  bool markers = false;  // dots (the final validation's few points) instead of a line
};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

std::pair<double, double> to_pixels(double x, double y, double max_step, double y_max) {
  return {kLeft + (kWidth - kLeft - kRight) * (max_step > 0 ? x / max_step : 0),
          kHeight - kBottom - (kHeight - kTop - kBottom) * std::clamp(y / y_max, 0.0, 1.0)};
}

std::string polyline(const Series& s, double max_step, double y_max) {
  std::ostringstream out;
  if (s.markers) {
    for (const auto& [x, y] : s.points) {
      const auto [px, py] = to_pixels(x, y, max_step, y_max);
      out << "<circle cx=\"" << fmt(px) << "\" cy=\"" << fmt(py) << "\" r=\"4\" fill=\"" << s.colour << "\"/>\n";
    }
    return out.str();
  }
  out << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.5\" points=\"";
  for (const auto& [x, y] : s.points) {
    const auto [px, py] = to_pixels(x, y, max_step, y_max);
    out << fmt(px) << "," << fmt(py) << " ";
  }
  out << "\"/>\n";
  return out.str();
}

std::string axes(double max_step, double loss_max) {
  std::ostringstream out;
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x1 << "\" y2=\"" << y0 << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x0 << "\" y2=\"" << y1 << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << x1 << "\" y1=\"" << y0 << "\" x2=\"" << x1 << "\" y2=\"" << y1 << "\" stroke=\"#888\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double frac = i / 4.0, y = y0 - (y0 - y1) * frac;
    out << "<text x=\"" << x0 - 6 << "\" y=\"" << y + 4 << "\" font-size=\"11\" text-anchor=\"end\">"
        << fmt(loss_max * frac) << "</text>\n"
        << "<text x=\"" << x1 + 6 << "\" y=\"" << y + 4 << "\" font-size=\"11\">" << fmt(100 * frac) << "</text>\n"
        << "<text x=\"" << x0 + (x1 - x0) * frac << "\" y=\"" << y0 + 18
        << "\" font-size=\"11\" text-anchor=\"middle\">" << fmt(max_step * frac) << "</text>\n";
  }
  out << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << kHeight - 10
      << "\" font-size=\"12\" text-anchor=\"middle\">step</text>\n"
      << "<text x=\"14\" y=\"" << (y0 + y1) / 2 << "\" font-size=\"12\" transform=\"rotate(-90 14 " << (y0 + y1) / 2
      << ")\" text-anchor=\"middle\">loss</text>\n"
      << "<text x=\"" << kWidth - 12 << "\" y=\"" << (y0 + y1) / 2 << "\" font-size=\"12\" transform=\"rotate(90 "
      << kWidth - 12 << " " << (y0 + y1) / 2 << ")\" text-anchor=\"middle\">BLEU</text>\n";
  return out.str();
}

}  // namespace

std::string render_training_svg(const std::vector<nlohmann::json>& lines) {
  std::vector<Series> series = {{"train loss", "#1f77b4", {}, false},
                                {"valid loss", "#ff7f0e", {}, false},
                                {"valid BLEU", "#2ca02c", {}, true},
                                {"final BLEU", "#d62728", {}, true, true}};
  double max_step = 1, loss_max = 1e-9;
  auto add = [&](Series& s, const nlohmann::json& j, const char* key, double step) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return;
    s.points.emplace_back(step, it->get<double>());
    if (!s.right_axis) loss_max = std::max(loss_max, it->get<double>());
  };
  for (const auto& j : lines) {
    double step = j.value("step", 0.0);
    max_step = std::max(max_step, step);
    add(series[0], j, "loss", step);
    add(series[1], j, "valid_loss", step);
    add(series[2], j, "valid_bleu", step);
    add(series[3], j, "final_bleu", step);
  }
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight << "\">\n"
      << axes(max_step, loss_max);
  double legend_x = kLeft + 10;
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    out << polyline(s, max_step, s.right_axis ? 100.0 : loss_max);
    out << "<rect x=\"" << legend_x << "\" y=\"14\" width=\"12\" height=\"4\" fill=\"" << s.colour << "\"/>"
        << "<text x=\"" << legend_x + 16 << "\" y=\"20\" font-size=\"12\">" << s.name << "</text>\n";
    legend_x += 120;
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace nmt::train
