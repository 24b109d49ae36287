// A heatmap of cross-attention as a standalone SVG image: source pieces
// across the top, target pieces down the left side, darker = more attention.
#pragma once

#include <string>
#include <vector>

namespace nmt::decode {

struct AttentionPicture {
  std::vector<std::string> source_labels;   // one per column
  std::vector<std::string> target_labels;   // one per row
  std::vector<std::vector<float>> weights;  // [rows][columns], each in [0, 1]
  std::string title;
};

// The SVG document. Labels are escaped; each cell carries its value as a
// tooltip. Throws std::invalid_argument when the shapes disagree.
std::string attention_svg(const AttentionPicture& picture);

}  // namespace nmt::decode
