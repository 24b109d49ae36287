// Nothing the user wrote is lost silently: every piece of every plan is
// translated, its best hypothesis checked for coverage (decode/coverage_check.h),
// and the pieces that fail are split further (LinePlanner::split_piece) and
// translated again, all of a round's parts in one set of batches. A piece's
// parts replace it only when they fail less than it did. At most
// CoverageOptions::rounds rounds; each round translates at most the tokens
// of the pieces that failed the round before, so the work stays linear in
// the input. What still fails is left in LinePlan::checks for the caller to
// report.
#pragma once

#include <vector>

#include "decode/coverage_check.h"
#include "decode/line_plan.h"
#include "decode/translation.h"

namespace nmt::decode {

std::vector<std::vector<std::vector<Hypothesis>>> translate_checked(std::vector<LinePlan>& plans,
                                                                    const PlanTranslator& translate,
                                                                    const LinePlanner& planner,
                                                                    const CoverageChecker& checker);

// How badly a check of a piece of `tokens` source tokens failed (0: it
// passed): what the rounds compare.
int64_t check_cost(const PieceCheck& check, const CoverageOptions& options, int64_t tokens);

// The coverage threshold learned on ordinary `sentences` (one a line, as a
// validation set holds them) translated with `options` (the check's other
// settings as there; nothing split again): learn_threshold() of each
// sentence's failing_threshold(). 0 when no sentence could fail.
double learn_coverage_threshold(model::Transformer model, const vocab::Vocabularies& vocabs,
                                TranslatorOptions options, const std::vector<std::string>& sentences);

// What the checks of translated lines found, added up for a report.
struct CoverageTally {
  int64_t checked_pieces = 0;   // pieces whose coverage was judged
  int64_t resplit_pieces = 0;   // failed, then split further and translated again
  int64_t uncovered_pieces = 0;  // still failing after the rounds: words uncovered or the length ratio off
  int64_t length_limited = 0;   // ended at their maximum length
  void add(const LinePlan& plan, const CoverageOptions& options);
  void add(const CoverageTally& other);
};

// One sentence for a user about what still fails in a translated plan
// ("4 source words may be missing from the translation: \"...\""); empty
// when nothing does.
std::string describe_failures(const LinePlan& plan, const CoverageOptions& options,
                              const vocab::Vocab& source);

}  // namespace nmt::decode
