// A heatmap of cross-attention as a standalone SVG image: source pieces
// across the top, target pieces down the left side, darker = more attention;
// framed cells show each target word's aligned source piece (the alignment
// that carries HTML markup, decode/word_alignment.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nmt::decode {

struct AttentionPicture {
  std::vector<std::string> source_labels;   // one per column
  std::vector<std::string> target_labels;   // one per row
  std::vector<std::vector<float>> weights;  // [rows][columns], each in [0, 1]
  std::vector<std::pair<size_t, size_t>> outlined;  // (row, column) cells drawn with a frame: the word alignment
  std::string title;
};

// The SVG document. Labels are escaped; each cell carries its value as a
// tooltip. Throws std::invalid_argument when the shapes disagree.
std::string attention_svg(const AttentionPicture& picture);

}  // namespace nmt::decode
