// The length penalty, which keeps beam search from preferring short outputs
// (every token adds a negative log-probability): GNMT's, ours by default, or
// the plain power of the length that CTranslate2 divides by, for models that
// came from it.
#pragma once

#include <cstdint>
#include <string>

namespace nmt::decode {

enum class LengthPenaltyForm {
  kGnmt,   // ((5 + length) / 6)^alpha (Wu et al. 2016; Marian, fairseq)
  kPower,  // length^alpha (CTranslate2)
};

// The penalty; 1 when alpha is 0. `length` counts the output tokens
// including the final eos, as fairseq, Marian and CTranslate2 count them.
double length_penalty(int64_t length, double alpha, LengthPenaltyForm form = LengthPenaltyForm::kGnmt);

// A hypothesis' reported score: its summed log-probability divided by the penalty.
double normalized_score(double log_prob, int64_t length, double alpha,
                        LengthPenaltyForm form = LengthPenaltyForm::kGnmt);

// "gnmt" or "power"; another name is a UsageError naming `origin`.
LengthPenaltyForm length_penalty_form(const std::string& name, const std::string& origin);
std::string length_penalty_form_name(LengthPenaltyForm form);

}  // namespace nmt::decode
