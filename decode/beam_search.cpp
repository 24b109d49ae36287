#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "decode/greedy_search.h"
#include "decode/search_step.h"

namespace nmt::decode {
namespace {

// Rows are grouped by sentence: rows [i * width, (i + 1) * width) belong to live[i].
struct BeamState {
  std::vector<int64_t> live;
  int64_t width = 1;       // 1 before the first step (all beams would be equal), then `beam`
  torch::Tensor prefixes;  // [rows, t + 1] int64, CPU, bos first
  torch::Tensor sums;      // [rows] summed log-probs, CPU float
};

struct Candidates {
  torch::Tensor values;   // [live, k] double, CPU, best first
  torch::Tensor indices;  // [live, k] into width * vocab
  int64_t vocab = 0;
};

// The 2*beam best one-token extensions of each live sentence.
Candidates top_candidates(StepScorer& scorer, const BeamState& state, const std::vector<int64_t>& max_lengths,
                          const SearchIds& ids, int64_t t, int64_t beam) {
  auto log_probs = scorer.next_log_probs(state.prefixes);
  std::vector<bool> force_eos(static_cast<size_t>(log_probs.size(0)));
  for (size_t r = 0; r < force_eos.size(); ++r) {
    force_eos[r] = t + 1 >= max_lengths[state.live[r / state.width]];
  }
  restrict_next_tokens(log_probs, ids, force_eos);
  Candidates c;
  c.vocab = log_probs.size(1);
  const auto totals = (log_probs + state.sums.to(log_probs.device()).unsqueeze(1))
                          .view({static_cast<int64_t>(state.live.size()), state.width * c.vocab});
  const int64_t k = std::min(2 * beam, totals.size(1));
  auto [values, indices] = totals.topk(k, 1);
  c.values = values.to(torch::kCPU, torch::kDouble);
  c.indices = indices.to(torch::kCPU, torch::kLong);
  return c;
}

struct NextRows {
  std::vector<int64_t> parents, tokens, live;
  std::vector<float> sums;
};

// Sorts one live sentence's candidates into completed hypotheses and next rows.
void advance_sentence(int64_t i, const Candidates& c, const BeamState& state, const std::vector<int64_t>& max_lengths,
                      const SearchIds& ids, const SearchOptions& o, int64_t t,
                      std::vector<std::vector<Hypothesis>>& finished, NextRows& next) {
  const int64_t s = state.live[i];
  const auto values = c.values.accessor<double, 2>();
  const auto indices = c.indices.accessor<int64_t, 2>();
  const size_t first = next.parents.size();
  int64_t kept = 0;
  for (int64_t j = 0; j < c.values.size(1) && (kept < o.beam || j < o.beam); ++j) {
    const double v = values[i][j];
    if (!std::isfinite(v)) break;  // sorted: the rest are forbidden tokens too
    const int64_t parent = i * state.width + indices[i][j] / c.vocab;
    const int64_t token = indices[i][j] % c.vocab;
    if (token == ids.eos) {
      if (j < o.beam) finished[s].push_back(completed(state.prefixes[parent], v, o.length_penalty));
    } else if (kept < o.beam) {
      next.parents.push_back(parent);
      next.tokens.push_back(token);
      next.sums.push_back(static_cast<float>(v));
      ++kept;
    }
  }
  const bool done = static_cast<int64_t>(finished[s].size()) >= o.beam || t + 1 >= max_lengths[s] || kept == 0;
  if (done) {
    next.parents.resize(first);
    next.tokens.resize(first);
    next.sums.resize(first);
    return;
  }
  // A vocabulary smaller than the beam leaves gaps; dead rows keep the shape.
  for (; kept < o.beam; ++kept) {
    next.parents.push_back(next.parents.back());
    next.tokens.push_back(next.tokens.back());
    next.sums.push_back(-std::numeric_limits<float>::infinity());
  }
  next.live.push_back(s);
}

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                                 const SearchIds& ids, const SearchOptions& o) {
  const auto n = static_cast<int64_t>(max_lengths.size());
  std::vector<std::vector<Hypothesis>> finished(n);
  BeamState state;
  for (int64_t s = 0; s < n; ++s) state.live.push_back(s);
  state.prefixes = torch::full({n, 1}, ids.bos, torch::kLong);
  state.sums = torch::zeros({n}, torch::kFloat);
  for (int64_t t = 0; !state.live.empty(); ++t) {
    const Candidates c = top_candidates(scorer, state, max_lengths, ids, t, o.beam);
    NextRows next;
    for (int64_t i = 0; i < static_cast<int64_t>(state.live.size()); ++i) {
      advance_sentence(i, c, state, max_lengths, ids, o, t, finished, next);
    }
    if (next.live.empty()) break;
    const auto parents = index_tensor(next.parents);
    scorer.select_rows(parents);
    state.prefixes = extend_prefixes(state.prefixes, next.parents, next.tokens);
    state.sums = torch::tensor(next.sums, torch::kFloat);
    state.live = std::move(next.live);
    state.width = o.beam;
  }
  for (auto& hyps : finished) {
    std::stable_sort(hyps.begin(), hyps.end(),
                     [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (static_cast<int64_t>(hyps.size()) > o.nbest) hyps.resize(o.nbest);
  }
  return finished;
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                            const SearchIds& ids, const SearchOptions& options) {
  if (options.beam > 1) return beam_search(scorer, max_lengths, ids, options);
  std::vector<std::vector<Hypothesis>> out;
  for (auto& h : greedy_search(scorer, max_lengths, ids, options.length_penalty)) out.push_back({std::move(h)});
  return out;
}

}  // namespace nmt::decode
