#include "decode/attention_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "text/html_document.h"
#include "text/utf8.h"

namespace nmt::decode {
namespace {

constexpr int kCell = 26;        // pixels per cell
constexpr int kCharWidth = 8;    // rough width of one label character at font-size 13
constexpr int kPad = 10;

std::string escape(const std::string& s) { return text::escape_markup(s); }

size_t longest(const std::vector<std::string>& labels) {
  size_t n = 0;
  for (const auto& l : labels) n = std::max(n, text::count_code_points(l));  // characters, not bytes
  return n;
}

// White (0) to dark blue (1).
std::string colour(float w) {
  const double x = std::clamp(static_cast<double>(w), 0.0, 1.0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", static_cast<int>(std::lround(255 - 247 * x)),
                static_cast<int>(std::lround(255 - 207 * x)), static_cast<int>(std::lround(255 - 148 * x)));
  return buf;
}

void check_shape(const AttentionPicture& p) {
  if (p.weights.size() != p.target_labels.size()) throw std::invalid_argument("attention rows != target labels");
  for (const auto& row : p.weights) {
    if (row.size() != p.source_labels.size()) throw std::invalid_argument("attention columns != source labels");
  }
}

}  // namespace

std::string attention_svg(const AttentionPicture& p) {
  check_shape(p);
  const int left = kPad + static_cast<int>(longest(p.target_labels)) * kCharWidth + kPad;
  // Column labels are rotated by -60 degrees: their height is about sin(60) * length.
  const int top = 30 + static_cast<int>(longest(p.source_labels) * kCharWidth * 0.87) + kPad;
  const int cols = static_cast<int>(p.source_labels.size()), rows = static_cast<int>(p.target_labels.size());
  const int width = left + cols * kCell + 3 * kPad, height = top + rows * kCell + kPad;
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kPad << "\" y=\"18\" font-weight=\"bold\">" << escape(p.title) << "</text>\n";
  for (int c = 0; c < cols; ++c) {
    const int x = left + c * kCell + kCell / 2, y = top - 6;
    svg << "<text x=\"" << x << "\" y=\"" << y << "\" transform=\"rotate(-60 " << x << ' ' << y << ")\">"
        << escape(p.source_labels[c]) << "</text>\n";
  }
  for (int r = 0; r < rows; ++r) {
    const int y = top + r * kCell;
    svg << "<text x=\"" << left - kPad / 2 << "\" y=\"" << y + kCell / 2 + 4 << "\" text-anchor=\"end\">"
        << escape(p.target_labels[r]) << "</text>\n";
    for (int c = 0; c < cols; ++c) {
      char value[16];
      std::snprintf(value, sizeof value, "%.3f", p.weights[r][c]);
      svg << "<rect x=\"" << left + c * kCell << "\" y=\"" << y << "\" width=\"" << kCell << "\" height=\"" << kCell
          << "\" fill=\"" << colour(p.weights[r][c]) << "\" stroke=\"#ddd\"><title>"
          << escape(p.target_labels[r]) << " / " << escape(p.source_labels[c]) << ": " << value
          << "</title></rect>\n";
    }
  }
  for (const auto& [r, c] : p.outlined) {
    if (r >= static_cast<size_t>(rows) || c >= static_cast<size_t>(cols)) {
      throw std::invalid_argument("attention_svg: an outlined cell lies outside the picture.");
    }
    svg << "<rect x=\"" << left + static_cast<int>(c) * kCell + 1 << "\" y=\"" << top + static_cast<int>(r) * kCell + 1
        << "\" width=\"" << kCell - 2 << "\" height=\"" << kCell - 2
        << "\" fill=\"none\" stroke=\"#e6550d\" stroke-width=\"2\"/>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace nmt::decode
