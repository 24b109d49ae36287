#include "decode/sampling.h"

#include <limits>

#include <cmath>

#include <torch/torch.h>

#include "util/random.h"

namespace nmt::decode {

bool sampling_enabled(const SearchOptions& options) { return options.sampling_topk != 1; }

torch::Tensor sampling_distribution(const torch::Tensor& log_probs, const SearchOptions& options) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  auto lp = log_probs;
  if (options.sampling_temperature != 1.0) lp = (lp / options.sampling_temperature).log_softmax(1);
  const int64_t vocab = lp.size(1);
  if (options.sampling_topk > 0 && options.sampling_topk < vocab) {
    const auto kth = std::get<0>(lp.topk(options.sampling_topk, 1)).narrow(1, options.sampling_topk - 1, 1);
    lp = lp.masked_fill(lp < kth, neg_inf);
  }
  if (options.sampling_topp < 1.0) {
    auto [sorted, order] = lp.sort(1, /*descending=*/true);
    const auto probs = sorted.exp();
    // A token goes when the tokens before it already reach p: the first always stays.
    const auto before = probs.cumsum(1) - probs;
    sorted = sorted.masked_fill(before >= options.sampling_topp, neg_inf);
    lp = torch::empty_like(lp).scatter_(1, order, sorted);
  }
  lp = lp.log_softmax(1);
  return lp.masked_fill(lp.isnan(), neg_inf);  // rows that had no finite entry
}

uint64_t noise_stream(uint64_t key, int64_t step) {
  return splitmix64(splitmix64(key) ^ mix64(static_cast<uint64_t>(step) + kGoldenGamma));
}

double gumbel(uint64_t stream, int64_t column) {
  // Counter-based (util/random.h's mix, not torch's generator): any column
  // can be drawn alone, and samples do not change with the LibTorch version.
  const uint64_t bits = mix64(stream + static_cast<uint64_t>(column + 1) * kGoldenGamma);
  const double u = (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
  return -std::log(-std::log(u));
}

torch::Tensor add_gumbel_noise(const torch::Tensor& scores, const std::vector<uint64_t>& streams) {
  auto keys = scores.to(torch::kCPU, torch::kDouble, /*non_blocking=*/false, /*copy=*/true).contiguous();
  const int64_t columns = keys.size(1);
  double* k = keys.data_ptr<double>();
  for (size_t r = 0; r < streams.size(); ++r) {
    double* row = k + static_cast<int64_t>(r) * columns;
    for (int64_t c = 0; c < columns; ++c) {
      if (row[c] != -std::numeric_limits<double>::infinity()) row[c] += gumbel(streams[r], c);
    }
  }
  return keys.to(scores.device());
}

uint64_t sample_key(uint64_t seed, const std::vector<int64_t>& source, const std::vector<int64_t>& target_prefix) {
  uint64_t h = splitmix64(seed);
  for (int64_t id : source) h = splitmix64(h ^ static_cast<uint64_t>(id));
  h = splitmix64(h ^ 0x5eedULL);  // keeps "a b | c" apart from "a | b c"
  for (int64_t id : target_prefix) h = splitmix64(h ^ static_cast<uint64_t>(id));
  return h;
}

}  // namespace nmt::decode
