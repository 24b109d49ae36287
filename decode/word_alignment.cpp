#include "decode/word_alignment.h"

#include <stdexcept>
#include <string>

namespace nmt::decode {
namespace {

bool starts_word(const std::string& piece) { return piece.rfind("\xE2\x96\x81", 0) == 0; }  // "▁"

}  // namespace

std::vector<WordAlignment> align_words(const torch::Tensor& attention, const std::vector<int64_t>& target,
                                       size_t source_tokens, const vocab::Vocab& target_vocab) {
  std::vector<WordAlignment> words;
  if (target.empty() || source_tokens == 0) return words;
  if (attention.dim() != 2 || attention.size(0) < static_cast<int64_t>(target.size()) ||
      attention.size(1) != static_cast<int64_t>(source_tokens) + 2) {
    throw std::invalid_argument("align_words: attention of shape " + std::to_string(attention.size(0)) + "x" +
                                std::to_string(attention.size(1)) + " for " + std::to_string(target.size()) +
                                " target and " + std::to_string(source_tokens) + " source tokens.");
  }
  const auto w = attention.accessor<float, 2>();
  for (size_t i = 0; i < target.size();) {
    size_t end = i + 1;
    while (end < target.size() && !starts_word(target_vocab.id_to_piece(static_cast<int32_t>(target[end])))) ++end;
    WordAlignment a{i, end, 0};
    float best = -1;
    for (size_t j = 0; j < source_tokens; ++j) {
      float sum = 0;
      for (size_t r = i; r < end; ++r) sum += w[static_cast<int64_t>(r)][static_cast<int64_t>(j + 1)];
      if (sum > best) best = sum, a.source = j;
    }
    words.push_back(a);
    i = end;
  }
  return words;
}

}  // namespace nmt::decode
