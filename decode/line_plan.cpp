#include "decode/line_plan.h"

#include <algorithm>

#include "decode/unknown_copies.h"
#include "text/join_pieces.h"
#include "text/split_to_fit.h"
#include "text/utf8.h"
#include "util/error.h"

namespace nmt::decode {
namespace {

// `ids` in nearly equal chunks (sizes differ by one at most) of at most
// `max_tokens`: a word longer than the model takes.
std::vector<std::vector<int64_t>> chunks_of(const std::vector<int32_t>& ids, int64_t max_tokens) {
  const auto n = static_cast<int64_t>(ids.size());
  const int64_t count = (n + max_tokens - 1) / max_tokens;
  std::vector<std::vector<int64_t>> chunks;
  for (int64_t k = 0, begin = 0; k < count; ++k) {
    const int64_t size = n / count + (k < n % count ? 1 : 0);
    chunks.emplace_back(ids.begin() + begin, ids.begin() + begin + size);
    begin += size;
  }
  return chunks;
}

}  // namespace

// Per id of `vocab`: 1 for the pieces named.
std::vector<uint8_t> id_set(const vocab::Vocab& vocab, const std::vector<std::string>& pieces) {
  std::vector<uint8_t> set(static_cast<size_t>(vocab.size()), 0);
  for (const auto& piece : pieces) {
    const int32_t id = vocab.piece_id(piece);
    if (id >= 0 && id != vocab.unk_id()) set[static_cast<size_t>(id)] = 1;
  }
  return set;
}

// Whether `word` is one piece of `set` ("The", not "Schuhe" whose first piece "▁S" opens many sentences too).
bool is_one_of(const vocab::Vocab& vocab, const std::vector<uint8_t>& set, std::string_view word) {
  const auto ids = vocab.encode(word);
  return ids.size() == 1 && set[static_cast<size_t>(ids.front())] != 0;
}

LinePlanner::LinePlanner(std::shared_ptr<const vocab::Vocab> source,
                         std::shared_ptr<const vocab::Vocab> target, PieceLimits limits,
                         bool split_sentences, PlannerLanguages languages, const TrainedShapes& shapes)
    : source_(std::move(source)),
      target_(std::move(target)),
      max_tokens_(limits.max_tokens),
      max_piece_(limits.max_piece_tokens > 0 ? std::min(limits.max_piece_tokens, limits.max_tokens) : limits.max_tokens),
      split_sentences_(split_sentences),
      splitter_(languages.source) {
  if (!source_) throw DataError("Planning a line needs the source vocabulary.");
  if (max_tokens_ < 1) throw DataError("The model takes no source tokens (max_len too small).");
  source_opener_ = id_set(*source_, shapes.source_openers);
  hints_.conjunctions = text::coordinating_conjunctions(languages.source);
  source_shape_ = {languages.source, nullptr, shapes.source_final_mark};
  if (!shapes.source_openers.empty()) {
    hints_.opens_sentence = [this](std::string_view word) {
      return is_one_of(*source_, source_opener_, word);
    };
    source_shape_.opens_sentence = hints_.opens_sentence;
  }
  if (target_) target_continues_ = word_continuations(*target_);
  target_shape_ = {languages.target, nullptr, shapes.target_final_mark};
  if (target_ && !shapes.target_openers.empty()) {
    target_opener_ = id_set(*target_, shapes.target_openers);
    target_shape_.opens_sentence = [this](std::string_view word) {
      return is_one_of(*target_, target_opener_, word);
    };
  }
}

LinePlan LinePlanner::plan(const std::string& line, bool split_sentences,
                           std::shared_ptr<const memory::Glossary> glossary) const {
  LinePlan plan;
  plan.text = line;
  if (glossary && !glossary->empty() && target_) plan.glossary = std::move(glossary);
  if (text::find_invalid_utf8(line) != line.size()) {
    plan.invalid_utf8 = true;
    return plan;
  }
  const text::Span whole = text::trim_space(line, {0, line.size()});
  std::vector<text::Span> sentences;
  if (split_sentences) {
    sentences = splitter_.split(line);
  } else if (!whole.empty()) {
    sentences.push_back(whole);
  }
  // Without sentence splitting the line's outer whitespace is dropped, as
  // SentencePiece drops it; with it, the paragraph keeps its spacing.
  std::string gap = split_sentences ? line.substr(0, whole.empty() ? line.size() : sentences.front().begin) : "";
  size_t last_end = sentences.empty() ? line.size() : sentences.front().begin;
  for (const auto& sentence : sentences) {
    gap += line.substr(last_end, sentence.begin - last_end);
    add_sentence(line, sentence, plan, gap);
    last_end = sentence.end;
  }
  if (split_sentences && !sentences.empty()) gap += line.substr(last_end);
  plan.gaps.push_back(std::move(gap));
  return plan;
}

std::vector<text::Span> LinePlanner::sentences(const std::string& line, bool split_sentences) const {
  if (split_sentences) return splitter_.split(line);
  const text::Span whole = text::trim_space(line, {0, line.size()});
  return whole.empty() ? std::vector<text::Span>{} : std::vector<text::Span>{whole};
}

void LinePlanner::add_piece(std::vector<int64_t> ids, LinePlan::Source source, LinePlan& plan,
                            std::string& gap) const {
  plan.pieces.push_back(std::move(ids));
  plan.sources.push_back(source);
  plan.gaps.push_back(std::move(gap));
  gap.clear();
}

TermConstraints LinePlanner::terms_in(const LinePlan& plan, const std::string& line, text::Span span,
                                      bool locate) const {
  TermConstraints out;
  if (!plan.glossary) return out;
  const std::string_view text = span.of(line);
  const auto matches = plan.glossary->find(text);
  if (matches.empty()) return out;
  // Where each match's tokens are among the piece's ids (the piece encodes `text` as it is unless dressed).
  const auto offsets = locate ? source_->encode_with_offsets(text) : std::vector<vocab::Vocab::IdSpan>{};
  std::vector<size_t> seen;
  for (const auto& match : matches) {
    if (std::find(seen.begin(), seen.end(), match.term) != seen.end()) continue;
    seen.push_back(match.term);
    const auto& term = plan.glossary->terms()[match.term];
    out.push_back(term_constraint(term.source, term.target, *target_, target_continues_));
    for (size_t j = 0; j < offsets.size(); ++j) {
      if (offsets[j].end <= match.span.begin || offsets[j].begin >= match.span.end) continue;
      if (out.back().source_end == 0) out.back().source_begin = static_cast<int64_t>(j);
      out.back().source_end = static_cast<int64_t>(j) + 1;
    }
  }
  return out;
}

void LinePlanner::add_sentence(const std::string& line, text::Span sentence, LinePlan& plan, std::string& gap) const {
  ++plan.sentences;
  auto ids = source_->encode(sentence.of(line));
  if (static_cast<int64_t>(ids.size()) <= max_piece_) {  // most sentences: one piece, encoded once
    if (ids.empty()) return;  // nothing the vocabulary keeps: no translation either
    LinePlan::Source whole;
    whole.span = sentence;
    whole.terms = terms_in(plan, line, sentence, true);
    add_piece({ids.begin(), ids.end()}, whole, plan, gap);
    return;
  }
  ++plan.long_sentences;
  add_pieces(line, sentence, max_piece_, true, true, plan, gap);
}

void LinePlanner::add_pieces(const std::string& line, text::Span span, int64_t limit, bool starts, bool ends,
                             LinePlan& plan, std::string& gap) const {
  const auto fits = [&](std::string_view piece) { return static_cast<int64_t>(source_->encode(piece).size()) <= limit; };
  const auto pieces = text::split_to_fit(line, span, fits, &splitter_, &hints_);
  size_t last_end = span.begin;
  for (size_t k = 0; k < pieces.size(); ++k) {
    const text::Span piece = pieces[k];
    gap += line.substr(last_end, piece.begin - last_end);
    last_end = piece.end;
    LinePlan::Source source;
    source.span = piece;
    source.starts = starts && k == 0;
    source.ends = ends && k + 1 == pieces.size();
    source.shaped = !(source.starts && source.ends);
    if (source.shaped) {
      source.shape = text::shape_piece(piece.of(line), source.starts, source.ends, source_shape_, target_shape_);
    }
    auto ids = source_->encode(source.shaped ? std::string_view(source.shape.text) : piece.of(line));
    if (ids.empty()) continue;  // nothing the vocabulary keeps (its gap stays with the next piece)
    auto chunks = chunks_of(ids, max_tokens_);  // one chunk unless a single word is too long for the model
    source.chunked = chunks.size() > 1;
    if (!source.chunked) source.terms = terms_in(plan, line, piece, !source.shaped);
    if (source.chunked && source.shaped) {  // a single word: chunks of it as it is
      source.shaped = false;
      chunks = chunks_of(source_->encode(piece.of(line)), max_tokens_);
    }
    for (auto& chunk : chunks) {
      const size_t n = chunk.size();
      add_piece(std::move(chunk), source, plan, gap);
      source.first_token += n;
    }
  }
}

LinePlan LinePlanner::split_piece(const LinePlan& plan, size_t i) const {
  LinePlan sub;
  sub.glossary = plan.glossary;
  const auto& source = plan.sources.at(i);
  const auto n = static_cast<int64_t>(plan.pieces.at(i).size());
  // A piece cut from one word by tokens has no text boundary to split at.
  if (source.chunked || n < 2) return sub;
  std::string gap;
  add_pieces(plan.text, source.span, (n + 1) / 2, source.starts, source.ends, sub, gap);
  sub.gaps.push_back("");  // add_pieces gave the gap before each piece (none before the first: spans are trimmed)
  if (sub.pieces.size() < 2) return LinePlan{};
  return sub;
}

std::vector<UnmetTerm> unmet_terms(const LinePlan& plan, const std::vector<std::vector<Hypothesis>>& hypotheses) {
  std::vector<UnmetTerm> out;
  for (size_t i = 0; i < hypotheses.size() && i < plan.sources.size(); ++i) {
    if (hypotheses[i].empty()) continue;
    for (int32_t k : hypotheses[i].front().unmet_terms) {
      const auto& c = plan.sources[i].terms.at(static_cast<size_t>(k));
      UnmetTerm term{c.source, c.target, !c.forms.empty()};
      if (std::find(out.begin(), out.end(), term) == out.end()) out.push_back(std::move(term));
    }
  }
  return out;
}

LineTranslation rebuild_line(LinePlan plan, std::vector<std::vector<Hypothesis>> hypotheses,
                             const vocab::Vocab& target, const text::SentenceShape& shape) {
  if (hypotheses.size() != plan.pieces.size()) {
    throw std::logic_error("rebuild_line: " + std::to_string(hypotheses.size()) + " results for " +
                           std::to_string(plan.pieces.size()) + " pieces.");
  }
  LineTranslation out;
  out.unmet_terms = unmet_terms(plan, hypotheses);
  size_t ranks = 0;
  std::vector<std::vector<std::string>> texts(hypotheses.size());  // per piece, per rank
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const auto& source = plan.sources[i];
    for (const auto& h : hypotheses[i]) {
      std::string text = hypothesis_text(target, h);
      texts[i].push_back(source.shaped ? text::unshape_translation(std::move(text), source.shape, shape) : text);
    }
    ranks = std::max(ranks, hypotheses[i].size());
  }
  for (size_t k = 0; k < ranks; ++k) {
    std::string body;
    double score = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      const size_t pick = std::min(k + 1, texts[i].size());  // 1-based; 0: the piece has no hypothesis
      if (pick == 0) continue;
      score += hypotheses[i][pick - 1].score;
      const std::string& piece = texts[i][pick - 1];
      if (piece.empty()) continue;  // no gap for an empty translation either
      if (!body.empty()) body += text::joint(body, plan.gaps[i], piece);
      body += piece;
    }
    out.texts.push_back(plan.gaps.front() + body + plan.gaps.back());
    out.scores.push_back(score);
  }
  out.plan = std::move(plan);
  out.hypotheses = std::move(hypotheses);
  return out;
}

}  // namespace nmt::decode
