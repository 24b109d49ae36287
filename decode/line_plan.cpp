#include "decode/line_plan.h"

#include <algorithm>

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

LinePlanner::LinePlanner(std::shared_ptr<const vocab::SentencePieceVocab> source, int64_t max_tokens,
                         bool split_sentences, const std::string& language)
    : source_(std::move(source)), max_tokens_(max_tokens), split_sentences_(split_sentences), splitter_(language) {
  if (!source_) throw DataError("Planning a line needs the source vocabulary.");
  if (max_tokens_ < 1) throw DataError("The model takes no source tokens (max_len too small).");
}

LinePlan LinePlanner::plan(const std::string& line, bool split_sentences) const {
  LinePlan plan;
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

void LinePlanner::add_piece(std::vector<int64_t> ids, LinePlan::Source source, LinePlan& plan,
                            std::string& gap) const {
  plan.pieces.push_back(std::move(ids));
  plan.sources.push_back(source);
  plan.gaps.push_back(std::move(gap));
  gap.clear();
}

void LinePlanner::add_sentence(const std::string& line, text::Span sentence, LinePlan& plan, std::string& gap) const {
  ++plan.sentences;
  auto ids = source_->encode(sentence.of(line));
  if (static_cast<int64_t>(ids.size()) <= max_tokens_) {  // most sentences: one piece, encoded once
    if (ids.empty()) return;  // nothing the vocabulary keeps: no translation either
    add_piece({ids.begin(), ids.end()}, {sentence, 0}, plan, gap);
    return;
  }
  ++plan.long_sentences;
  const auto fits = [&](std::string_view piece) {
    return static_cast<int64_t>(source_->encode(piece).size()) <= max_tokens_;
  };
  size_t last_end = sentence.begin;
  for (const auto& piece : text::split_to_fit(line, sentence, fits, &splitter_)) {
    gap += line.substr(last_end, piece.begin - last_end);
    last_end = piece.end;
    ids = source_->encode(piece.of(line));
    size_t first = 0;
    for (auto& chunk : chunks_of(ids, max_tokens_)) {  // one chunk unless a single word is too long
      const size_t n = chunk.size();
      add_piece(std::move(chunk), {piece, first}, plan, gap);
      first += n;
    }
  }
}

LineTranslation rebuild_line(LinePlan plan, std::vector<std::vector<Hypothesis>> hypotheses,
                             const vocab::SentencePieceVocab& target) {
  if (hypotheses.size() != plan.pieces.size()) {
    throw std::logic_error("rebuild_line: " + std::to_string(hypotheses.size()) + " results for " +
                           std::to_string(plan.pieces.size()) + " pieces.");
  }
  LineTranslation out;
  size_t ranks = 0;
  std::vector<std::vector<std::string>> texts(hypotheses.size());  // per piece, per rank
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    for (const auto& h : hypotheses[i]) texts[i].push_back(target.decode(h.tokens));
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
