#include "cli/translator_attention.h"

#include <string>

#include <torch/torch.h>

#include "decode/attention_svg.h"
#include "decode/word_alignment.h"
#include "util/atomic_file.h"

namespace nmt::cli {

void write_attention_svg(decode::Translator& translator, const decode::LineTranslation& t, int64_t attention_layer,
                         const std::string& svg_path, int64_t index) {
  const auto& source = t.plan.pieces.front();
  const auto& best = t.hypotheses.front().front();
  const auto weights = translator.cross_attention(source, best.tokens, attention_layer);
  const auto& src = *translator.vocabs().src;
  const auto& tgt = *translator.vocabs().tgt;
  decode::AttentionPicture p;
  p.source_labels.push_back(src.id_to_piece(src.bos_id()));
  for (int64_t id : source) p.source_labels.push_back(src.id_to_piece(static_cast<int32_t>(id)));
  p.source_labels.push_back(src.id_to_piece(src.eos_id()));
  for (int64_t id : best.tokens) p.target_labels.push_back(tgt.id_to_piece(static_cast<int32_t>(id)));
  p.target_labels.push_back(tgt.id_to_piece(tgt.eos_id()));
  const auto w = weights.contiguous();
  for (int64_t r = 0; r < w.size(0); ++r) {
    p.weights.emplace_back(w[r].data_ptr<float>(), w[r].data_ptr<float>() + w.size(1));
  }
  // Framed: each target word's aligned source piece, as --format html would carry markup at this layer.
  for (const auto& word : decode::align_words(weights, best.tokens, source.size(), tgt)) {
    for (size_t row = word.begin; row < word.end; ++row) p.outlined.push_back({row, word.source + 1});
  }
  const int64_t layer = attention_layer < 0 ? translator.model().config().n_layers + attention_layer
                                              : attention_layer;
  p.title = "Cross-attention, decoder layer " + std::to_string(layer) + ", mean over heads, line " +
            std::to_string(index + 1) + " (framed: the word alignment)";
  write_file_atomically(svg_path, decode::attention_svg(p));
}

}  // namespace nmt::cli
