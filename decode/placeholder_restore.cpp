#include "decode/placeholder_restore.h"

#include <algorithm>

#include "decode/line_alignment.h"

namespace nmt::decode {

bool has_placeholders(const LineTranslation& line) { return !line.plan.masked.atoms.empty(); }

void restore_placeholders(Translator& translator, LineTranslation& line, int64_t layer) {
  const text::MaskedText& masked = line.plan.masked;
  if (masked.atoms.empty()) return;
  if (line.texts.empty()) {  // nothing for the model: the line as it came
    line.texts = {masked.with_literals()};
    line.scores = {0.0};
    return;
  }
  for (size_t rank = 0; rank < line.texts.size(); ++rank) {
    // The pieces' hypotheses this rank was joined from, each as its piece's best.
    std::vector<std::vector<Hypothesis>> chosen(line.hypotheses.size());
    for (size_t k = 0; k < line.hypotheses.size(); ++k) {
      const auto& h = line.hypotheses[k];
      if (!h.empty()) chosen[k] = {h[std::min(rank, h.size() - 1)]};
    }
    const auto attention = piece_attention(translator, line.plan, chosen, layer);
    const auto words = aligned_words(translator, line.plan.text, line.plan, chosen, attention);
    line.texts[rank] = text::place_atoms(line.texts[rank], words, masked);
  }
}

void restore_placeholders(Translator& translator, std::vector<LineTranslation>& lines) {
  if (std::none_of(lines.begin(), lines.end(), has_placeholders)) return;
  const int64_t layer = default_alignment_layer(translator);
  for (auto& line : lines) restore_placeholders(translator, line, layer);
}

}  // namespace nmt::decode
