#include "decode/checked_translation.h"

#include <algorithm>

namespace nmt::decode {
namespace {

using PlanHypotheses = std::vector<std::vector<Hypothesis>>;  // [piece][rank]

PieceCheck check_piece(const CoverageChecker& checker, const std::vector<int64_t>& ids,
                       const std::vector<Hypothesis>& hypotheses) {
  return hypotheses.empty() ? PieceCheck{} : checker.check(ids, hypotheses.front());
}

// A piece of a plan that failed its check, and its parts.
struct Retry {
  size_t plan = 0, piece = 0;
  LinePlan parts;
};

// Piece `r.piece` of `plan` replaced by r.parts (their gaps between them).
void replace_piece(LinePlan& plan, PlanHypotheses& hypotheses, Retry& r, PlanHypotheses& part_hypotheses,
                   std::vector<PieceCheck>& part_checks) {
  const auto at = static_cast<std::ptrdiff_t>(r.piece);
  const auto n = static_cast<std::ptrdiff_t>(r.parts.pieces.size());
  plan.pieces.erase(plan.pieces.begin() + at);
  plan.pieces.insert(plan.pieces.begin() + at, r.parts.pieces.begin(), r.parts.pieces.end());
  plan.sources.erase(plan.sources.begin() + at);
  plan.sources.insert(plan.sources.begin() + at, r.parts.sources.begin(), r.parts.sources.end());
  // gaps[at] stays before the first part, gaps[at + 1] after the last; the parts' inner gaps go between.
  plan.gaps.insert(plan.gaps.begin() + at + 1, r.parts.gaps.begin() + 1, r.parts.gaps.begin() + n);
  hypotheses.erase(hypotheses.begin() + at);
  hypotheses.insert(hypotheses.begin() + at, std::make_move_iterator(part_hypotheses.begin()),
                    std::make_move_iterator(part_hypotheses.end()));
  plan.checks.erase(plan.checks.begin() + at);
  plan.checks.insert(plan.checks.begin() + at, part_checks.begin(), part_checks.end());
  ++plan.resplit_pieces;
}

}  // namespace

int64_t check_cost(const PieceCheck& c, const CoverageOptions& options, int64_t tokens) {
  if (!c.failed(options)) return 0;
  // About how many source words went missing: those left unattended, half
  // the piece when its length is far off, and a piece cut at its limit worst of all.
  return std::max<int64_t>(c.uncovered_total, 1) + (c.ratio_outside ? tokens / 2 : 0) + (c.length_limited ? 1000 : 0);
}

std::vector<std::vector<std::vector<Hypothesis>>> translate_checked(std::vector<LinePlan>& plans,
                                                                    const PlanTranslator& translate,
                                                                    const LinePlanner& planner,
                                                                    const CoverageChecker& checker) {
  auto hypotheses = translate(plans);
  const CoverageOptions& options = checker.options();
  for (size_t p = 0; p < plans.size(); ++p) {
    plans[p].checks.clear();
    for (size_t i = 0; i < plans[p].pieces.size(); ++i) {
      plans[p].checks.push_back(check_piece(checker, plans[p].pieces[i], hypotheses[p][i]));
    }
  }
  for (int64_t round = 0; round < options.rounds; ++round) {
    std::vector<Retry> retries;
    for (size_t p = 0; p < plans.size(); ++p) {
      for (size_t i = 0; i < plans[p].pieces.size(); ++i) {
        if (!plans[p].checks[i].failed(options) || plans[p].checks[i].split_tried) continue;
        if (i == 0 && !plans[p].target_prefix.empty()) continue;  // its translation must start with the prefix
        LinePlan parts = planner.split_piece(plans[p], i);
        if (!parts.pieces.empty()) retries.push_back({p, i, std::move(parts)});
      }
    }
    if (retries.empty()) break;
    std::vector<LinePlan> batch;
    batch.reserve(retries.size());
    for (auto& r : retries) batch.push_back(r.parts);
    auto found = translate(batch);
    // Last piece first, so that the indices of the pieces before stay valid.
    for (size_t k = retries.size(); k-- > 0;) {
      Retry& r = retries[k];
      std::vector<PieceCheck> part_checks;
      int64_t cost = 0;
      for (size_t j = 0; j < r.parts.pieces.size(); ++j) {
        part_checks.push_back(check_piece(checker, r.parts.pieces[j], found[k][j]));
        cost += check_cost(part_checks.back(), options, static_cast<int64_t>(r.parts.pieces[j].size()));
      }
      const auto whole = static_cast<int64_t>(plans[r.plan].pieces[r.piece].size());
      if (cost >= check_cost(plans[r.plan].checks[r.piece], options, whole)) {
        plans[r.plan].checks[r.piece].split_tried = true;
        continue;
      }
      replace_piece(plans[r.plan], hypotheses[r.plan], r, found[k], part_checks);
    }
  }
  return hypotheses;
}

double learn_coverage_threshold(model::Transformer model, const vocab::Vocabularies& vocabs,
                                TranslatorOptions options, const std::vector<std::string>& sentences) {
  options.coverage.check = true;
  options.coverage.rounds = 0;
  options.max_piece_tokens = 0;  // whole sentences, as the model was trained on them
  Translator translator(std::move(model), vocabs, options);
  const CoverageChecker checker(vocabs.src, options.coverage);
  std::vector<double> levels;
  for (const auto& t : translator.translate(sentences)) {
    for (size_t i = 0; i < t.plan.pieces.size(); ++i) {
      if (t.hypotheses[i].empty()) continue;
      const auto words = checker.word_masses(t.plan.pieces[i], t.hypotheses[i].front().coverage);
      levels.push_back(failing_threshold(words, options.coverage.max_uncovered_words));
    }
  }
  return learn_threshold(levels);
}

void CoverageTally::add(const LinePlan& plan, const CoverageOptions& options) {
  resplit_pieces += plan.resplit_pieces;
  for (size_t i = 0; i < plan.checks.size(); ++i) {
    const PieceCheck& c = plan.checks[i];
    checked_pieces += c.checked ? 1 : 0;
    length_limited += c.length_limited ? 1 : 0;
    uncovered_pieces += !c.length_limited && c.failed(options) ? 1 : 0;
  }
}

void CoverageTally::add(const CoverageTally& o) {
  checked_pieces += o.checked_pieces;
  resplit_pieces += o.resplit_pieces;
  uncovered_pieces += o.uncovered_pieces;
  length_limited += o.length_limited;
}

namespace {

// The text of tokens [begin, end) of piece i (a few words), quoted.
std::string piece_words(const LinePlan& plan, size_t i, int64_t begin, int64_t end,
                        const vocab::Vocab& source) {
  const auto& from = plan.sources[i];
  const std::string_view piece = from.shaped ? std::string_view(from.shape.text) : from.span.of(plan.text);
  const auto ids = source.encode_with_offsets(piece);
  const auto first = static_cast<int64_t>(plan.sources[i].first_token);
  const int64_t b = std::clamp<int64_t>(first + begin, 0, static_cast<int64_t>(ids.size()));
  const int64_t e = std::clamp<int64_t>(first + end, b, static_cast<int64_t>(ids.size()));
  if (b == e) return "\"\"";
  std::string words(piece.substr(ids[b].begin, ids[e - 1].end - ids[b].begin));
  if (words.size() > 80) {
    size_t cut = 77;
    while (cut > 0 && (static_cast<unsigned char>(words[cut]) & 0xC0) == 0x80) --cut;  // on a character's first byte
    words = words.substr(0, cut) + "...";
  }
  return "\"" + words + "\"";
}

}  // namespace

std::string describe_failures(const LinePlan& plan, const CoverageOptions& options,
                              const vocab::Vocab& source) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < plan.checks.size(); ++i) {
    const PieceCheck& c = plan.checks[i];
    if (!c.failed(options)) continue;
    if (c.length_limited) {
      parts.push_back("the translation of " + piece_words(plan, i, 0, static_cast<int64_t>(plan.pieces[i].size()), source) +
                      " stopped at its length limit");
    } else if (c.uncovered_words > options.max_uncovered_words) {
      parts.push_back(std::to_string(c.uncovered_words) + " source words may be missing from the translation: " +
                      piece_words(plan, i, c.uncovered_begin, c.uncovered_end, source));
    } else {
      parts.push_back("the translation of " + piece_words(plan, i, 0, static_cast<int64_t>(plan.pieces[i].size()), source) +
                      " is far shorter or longer than the model's training pairs");
    }
  }
  constexpr size_t kNamed = 3;  // a line of many failing pieces names the first few
  std::string out;
  for (size_t k = 0; k < parts.size() && k < kNamed; ++k) out += (k ? "; " : "") + parts[k];
  if (parts.size() > kNamed) out += "; and " + std::to_string(parts.size() - kNamed) + " more piece(s)";
  return out;
}

}  // namespace nmt::decode
