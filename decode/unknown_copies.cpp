#include "decode/unknown_copies.h"

#include <algorithm>

#include "decode/line_alignment.h"
#include "vocab/copied_pieces.h"

namespace nmt::decode {
namespace {

bool holds(const Hypothesis& h, int64_t unk) { return std::find(h.tokens.begin(), h.tokens.end(), unk) != h.tokens.end(); }

// The source pieces of piece k of `plan` as its segmenter cut them, one per
// id; where a re-cut disagrees with the ids (it should not), the ids' own pieces.
std::vector<std::string> source_pieces(const vocab::Vocab& src, const LinePlan& plan, size_t k) {
  const auto& ids = plan.pieces[k];
  const auto& source = plan.sources[k];
  const std::string text = source.shaped ? source.shape.text : std::string(source.span.of(plan.text));
  const auto cut = src.encode_pieces(text);
  const auto cut_ids = src.encode(text);
  std::vector<std::string> out;
  for (size_t j = 0; j < ids.size(); ++j) {
    const size_t t = source.first_token + j;
    const bool same = t < cut.size() && cut.size() == cut_ids.size() && cut_ids[t] == ids[j];
    out.push_back(same ? cut[t] : src.id_to_piece(static_cast<int32_t>(ids[j])));
  }
  return out;
}

void copy_into(Translator& translator, const std::vector<int64_t>& source, const std::vector<std::string>& pieces,
               Hypothesis& h, int64_t layer) {
  const int64_t unk = translator.vocabs().tgt->unk_id();
  // [target + 1, source + 2]: the source's own pieces are columns 1..n.
  const auto attention = translator.cross_attention(source, h.tokens, layer, translator.options().alignment_heads)
                             .narrow(1, 1, static_cast<int64_t>(source.size()));
  const auto best = attention.argmax(1);  // the first of equals, as CTranslate2 takes them
  const auto at = best.accessor<int64_t, 1>();
  h.unknown_copies.clear();
  for (size_t t = 0; t < h.tokens.size(); ++t) {
    if (h.tokens[t] == unk) h.unknown_copies.push_back(pieces[static_cast<size_t>(at[static_cast<int64_t>(t)])]);
  }
}

}  // namespace

std::string hypothesis_text(const vocab::Vocab& target, const Hypothesis& h, size_t begin, size_t end) {
  end = std::min(end, h.tokens.size());
  begin = std::min(begin, end);
  const std::vector<int64_t> slice(h.tokens.begin() + static_cast<std::ptrdiff_t>(begin),
                                   h.tokens.begin() + static_cast<std::ptrdiff_t>(end));
  if (h.unknown_copies.empty()) return target.decode(slice);
  const int64_t unk = target.unk_id();
  const auto before = static_cast<size_t>(
      std::count(h.tokens.begin(), h.tokens.begin() + static_cast<std::ptrdiff_t>(begin), unk));
  const size_t first = std::min(before, h.unknown_copies.size());
  const size_t last = std::min(first + static_cast<size_t>(std::count(slice.begin(), slice.end(), unk)),
                               h.unknown_copies.size());
  return vocab::decode_with_copies(target, slice, {h.unknown_copies.begin() + static_cast<std::ptrdiff_t>(first),
                                                   h.unknown_copies.begin() + static_cast<std::ptrdiff_t>(last)});
}

bool has_unknowns(const Translator& translator, const std::vector<std::vector<std::vector<Hypothesis>>>& hypotheses) {
  if (!translator.options().replace_unknowns || !translator.vocabs().tgt) return false;
  const int64_t unk = translator.vocabs().tgt->unk_id();
  for (const auto& plan : hypotheses) {
    for (const auto& piece : plan) {
      if (std::any_of(piece.begin(), piece.end(), [&](const Hypothesis& h) { return holds(h, unk); })) return true;
    }
  }
  return false;
}

void copy_unknowns(Translator& translator, const std::vector<LinePlan>& plans,
                   std::vector<std::vector<std::vector<Hypothesis>>>& hypotheses) {
  if (!has_unknowns(translator, hypotheses)) return;
  const auto& options = translator.options();
  const int64_t layer = options.alignment_layer ? *options.alignment_layer : default_alignment_layer(translator);
  const int64_t unk = translator.vocabs().tgt->unk_id();
  for (size_t p = 0; p < plans.size(); ++p) {
    for (size_t k = 0; k < hypotheses[p].size(); ++k) {
      auto& ranks = hypotheses[p][k];
      const auto& source = plans[p].pieces[k];
      if (source.empty() || std::none_of(ranks.begin(), ranks.end(), [&](const Hypothesis& h) { return holds(h, unk); })) {
        continue;
      }
      const auto pieces = source_pieces(*translator.vocabs().src, plans[p], k);
      for (auto& h : ranks) {
        if (holds(h, unk)) copy_into(translator, source, pieces, h, layer);
      }
    }
  }
}

}  // namespace nmt::decode
