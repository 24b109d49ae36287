#include "decode/length_penalty.h"

#include <cmath>

namespace nmt::decode {

double length_penalty(int64_t length, double alpha) {
  if (alpha == 0.0) return 1.0;
  return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

double normalized_score(double log_prob, int64_t length, double alpha) {
  return log_prob / length_penalty(length, alpha);
}

}  // namespace nmt::decode
