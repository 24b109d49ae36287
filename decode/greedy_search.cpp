#include "decode/greedy_search.h"

#include <numeric>

#include <torch/torch.h>

#include "decode/next_token_rules.h"
#include "decode/search_step.h"

namespace nmt::decode {
std::vector<Hypothesis> greedy_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                      const SearchIds& ids, double alpha) {
  SearchOptions options;
  options.length_penalty = alpha;
  return greedy_search(scorer, SearchBatch{max_lengths, {}, {}, {}}, ids, options);
}

std::vector<Hypothesis> greedy_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                      const SearchIds& ids, const SearchOptions& options) {
  return greedy_search(scorer, SearchBatch{max_lengths, {}, {}, {}}, ids, options);
}

std::vector<Hypothesis> greedy_search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                      const SearchOptions& options) {
  const NextTokenRules rules(options, ids, batch);
  const auto n = static_cast<int64_t>(batch.size());
  std::vector<Hypothesis> out(n);
  std::vector<int64_t> live(n);  // sentence of each scorer row
  std::iota(live.begin(), live.end(), 0);
  std::vector<double> sum(n, 0.0);
  GrowingPrefixes growing(n, ids.bos);
  for (int64_t t = 0; !live.empty(); ++t) {
    const torch::Tensor& prefixes = growing.tensor();
    auto log_probs = scorer.next_log_probs(prefixes);
    rules.shape(log_probs, prefixes, live);
    torch::Tensor best, arg;
    if (rules.sampling()) {
      arg = rules.keys(log_probs, live, t).argmax(1);
      best = log_probs.gather(1, arg.unsqueeze(1)).squeeze(1);
    } else {
      std::tie(best, arg) = best_candidates(log_probs, torch::Tensor(), 1, 1);
      best = best.squeeze(1);
      arg = arg.squeeze(1);
    }
    best = best.to(torch::kCPU, torch::kFloat);
    arg = arg.to(torch::kCPU, torch::kLong);
    const auto best_a = best.accessor<float, 1>();
    const auto arg_a = arg.accessor<int64_t, 1>();
    std::vector<int64_t> keep_rows, keep_tokens, next_live;
    for (size_t r = 0; r < live.size(); ++r) {
      const int64_t s = live[r];
      sum[s] += best_a[r];
      if (arg_a[r] == ids.eos) {
        out[s] = completed(prefixes[r], sum[s], options);
        out[s].coverage = scorer.coverage(static_cast<int64_t>(r));
      } else {
        keep_rows.push_back(static_cast<int64_t>(r));
        keep_tokens.push_back(arg_a[r]);
        next_live.push_back(s);
      }
    }
    if (next_live.empty()) break;
    // Finished sentences stop costing compute.
    if (next_live.size() < live.size()) scorer.select_rows(index_tensor(keep_rows));
    growing.extend(keep_rows, keep_tokens);
    live = std::move(next_live);
  }
  return out;
}

}  // namespace nmt::decode
