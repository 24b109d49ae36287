#include "decode/search_options.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "util/error.h"

namespace nmt::decode {

void SearchOptions::validate() const {
  if (beam < 1) throw UsageError("--beam must be at least 1 (got " + std::to_string(beam) + ").");
  if (nbest < 1) throw UsageError("--nbest must be at least 1 (got " + std::to_string(nbest) + ").");
  if (nbest > beam) {
    throw UsageError("--nbest " + std::to_string(nbest) + " needs a beam at least as wide; use --beam " +
                     std::to_string(nbest) + " or more (got --beam " + std::to_string(beam) + ").");
  }
  if (!std::isfinite(length_penalty) || length_penalty < 0) {
    throw UsageError("--length-penalty must be a non-negative number (got " + std::to_string(length_penalty) + ").");
  }
  if (!std::isfinite(patience) || patience <= 0) {
    throw UsageError("--patience must be a positive number (got " + std::to_string(patience) + ").");
  }
  if (min_length < 0) throw UsageError("--min-length must not be negative (got " + std::to_string(min_length) + ").");
  if (no_repeat_ngram_size < 0) {
    throw UsageError("--no-repeat-ngram-size must not be negative (got " + std::to_string(no_repeat_ngram_size) +
                     ").");
  }
  if (!std::isfinite(repetition_penalty) || repetition_penalty <= 0) {
    throw UsageError("--repetition-penalty must be a positive number (got " + std::to_string(repetition_penalty) +
                     "; 1 is off).");
  }
  if (sampling_topk < 0) {
    throw UsageError("--sampling-topk must not be negative (got " + std::to_string(sampling_topk) +
                     "; 0 samples from the whole vocabulary, 1 is no sampling).");
  }
  if (!std::isfinite(sampling_topp) || sampling_topp <= 0 || sampling_topp > 1) {
    throw UsageError("--sampling-topp must be in (0, 1] (got " + std::to_string(sampling_topp) + ").");
  }
  if (!std::isfinite(sampling_temperature) || sampling_temperature <= 0) {
    throw UsageError("--sampling-temperature must be a positive number (got " +
                     std::to_string(sampling_temperature) + ").");
  }
  if (!std::isfinite(max_len_a) || max_len_a < 0) {
    throw UsageError("--max-len-a must be a non-negative number (got " + std::to_string(max_len_a) + ").");
  }
  if (max_len_b < 0) throw UsageError("--max-len-b must not be negative (got " + std::to_string(max_len_b) + ").");
  if (max_len_a == 0 && max_len_b == 0) {
    throw UsageError("--max-len-a 0 with --max-len-b 0 allows no output at all.");
  }
}

bool operator==(const SearchOptions& a, const SearchOptions& b) {
  const auto fields = [](const SearchOptions& o) {
    return std::tie(o.beam, o.nbest, o.length_penalty, o.length_penalty_form, o.patience, o.min_length, o.no_repeat_ngram_size,
                    o.repetition_penalty, o.sampling_topk, o.sampling_topp, o.sampling_temperature, o.seed, o.max_len_a,
                    o.max_len_b, o.ctranslate2_prefix, o.cached);
  };
  return fields(a) == fields(b);
}

int64_t max_output_length(int64_t source_tokens, const SearchOptions& options, int64_t model_max_len) {
  const double limit = std::floor(options.max_len_a * static_cast<double>(source_tokens)) +
                       static_cast<double>(options.max_len_b);
  const double capped = std::min(limit, static_cast<double>(model_max_len));
  return std::max<int64_t>(1, static_cast<int64_t>(capped));
}

}  // namespace nmt::decode
