#include "decode/line_alignment.h"

#include "decode/unknown_copies.h"
#include "decode/word_alignment.h"
#include "text/span.h"

namespace nmt::decode {

int64_t default_alignment_layer(Translator& translator) {
  return translator.model().config().n_layers >= 2 ? -2 : -1;
}

std::vector<torch::Tensor> piece_attention(Translator& translator, const LinePlan& plan,
                                           const std::vector<std::vector<Hypothesis>>& hypotheses, int64_t layer) {
  std::vector<torch::Tensor> attention(plan.pieces.size());
  for (size_t k = 0; k < plan.pieces.size(); ++k) {
    const auto& h = hypotheses[k];
    if (!h.empty()) attention[k] = translator.cross_attention(plan.pieces[k], h.front().tokens, layer);
  }
  return attention;
}

std::vector<text::AlignedWord> aligned_words(const Translator& translator, const std::string& text,
                                             const LinePlan& plan,
                                             const std::vector<std::vector<Hypothesis>>& hypotheses,
                                             const std::vector<torch::Tensor>& attention, size_t offset) {
  const auto& src = *translator.vocabs().src;
  const auto& tgt = *translator.vocabs().tgt;
  std::vector<text::AlignedWord> words;
  for (size_t k = 0; k < plan.pieces.size(); ++k) {
    if (hypotheses[k].empty() || !attention[k].defined()) continue;
    const auto& piece = plan.pieces[k];
    const Hypothesis& best = hypotheses[k].front();
    const auto& tokens = best.tokens;
    const auto& source = plan.sources[k];
    // Each source token's position in the run's text (by its share of the piece if SentencePiece disagrees).
    const auto spans = src.encode_with_offsets(source.span.of(text));
    std::vector<size_t> position(piece.size());
    const std::string_view piece_text = source.span.of(text);
    for (size_t j = 0; j < piece.size(); ++j) {
      const size_t t = source.first_token + j;
      size_t at = source.span.size() * j / piece.size();  // if SentencePiece disagrees: the token's share
      if (t < spans.size() && spans[t].id == piece[j]) {
        // The surface of "▁word" starts at the space before the word: take its first visible byte.
        at = text::trim_space(piece_text, {spans[t].begin, spans[t].end}).begin;
      }
      position[j] = offset + source.span.begin + at;
    }
    for (const auto& a : align_words(attention[k], tokens, piece.size(), tgt)) {
      std::string word = hypothesis_text(tgt, best, a.begin, a.end);
      if (!word.empty()) words.push_back({std::move(word), position[a.source]});
    }
  }
  return words;
}

}  // namespace nmt::decode
