#include "decode/length_penalty.h"

#include <cmath>

#include "util/error.h"

namespace nmt::decode {

double length_penalty(int64_t length, double alpha, LengthPenaltyForm form) {
  if (alpha == 0.0) return 1.0;
  const double l = static_cast<double>(length);
  return form == LengthPenaltyForm::kPower ? std::pow(l, alpha) : std::pow((5.0 + l) / 6.0, alpha);
}

double normalized_score(double log_prob, int64_t length, double alpha, LengthPenaltyForm form) {
  return log_prob / length_penalty(length, alpha, form);
}

LengthPenaltyForm length_penalty_form(const std::string& name, const std::string& origin) {
  if (name == "gnmt") return LengthPenaltyForm::kGnmt;
  if (name == "power") return LengthPenaltyForm::kPower;
  throw UsageError(origin + " must be \"gnmt\" or \"power\" (got \"" + name + "\").");
}

std::string length_penalty_form_name(LengthPenaltyForm form) {
  return form == LengthPenaltyForm::kPower ? "power" : "gnmt";
}

}  // namespace nmt::decode
