#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "decode/greedy_search.h"
#include "decode/next_token_rules.h"
#include "decode/search_step.h"

namespace nmt::decode {
namespace {

struct Candidates {
  torch::Tensor values;   // [live, k] float, CPU, best first
  torch::Tensor indices;  // [live, k] into width * vocab
  int64_t vocab = 0;
};

// The rows that continue after a step, and the sentences they belong to.
struct NextRows {
  std::vector<int64_t> parents, tokens, live;
  std::vector<float> sums;
};

// One beam search over a batch: what it was asked (scorer, limits, ids,
// options) and where it stands (live sentences, their rows' prefixes and
// scores, the hypotheses completed so far, the step).
class BeamSearch {
 public:
  BeamSearch(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids, const SearchOptions& options)
      : scorer_(scorer),
        max_lengths_(batch.max_lengths),
        ids_(ids),
        options_(options),
        rules_(options, ids, batch),
        finished_wanted_(std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(options.beam) *
                                                                              options.patience - 1e-9)))),
        finished_(batch.size()),
        prefixes_(static_cast<int64_t>(batch.size()), ids.bos) {
    const auto n = static_cast<int64_t>(batch.size());
    for (int64_t s = 0; s < n; ++s) live_.push_back(s);
    sums_ = torch::zeros({n}, torch::kFloat);
  }

  std::vector<std::vector<Hypothesis>> run() {
    for (; !live_.empty(); ++t_) {
      const Candidates c = top_candidates();
      NextRows next;
      for (int64_t i = 0; i < static_cast<int64_t>(live_.size()); ++i) advance_sentence(i, c, next);
      if (next.live.empty()) break;
      scorer_.select_rows(index_tensor(next.parents));
      prefixes_.extend(next.parents, next.tokens);
      sums_ = torch::tensor(next.sums, torch::kFloat);
      live_ = std::move(next.live);
      width_ = options_.beam;
    }
    for (auto& hyps : finished_) {
      // Rules that forbid every token (no_repeat_ngram_size 1 over a tiny
      // vocabulary) can end a sentence with nothing finished: an empty one.
      if (hyps.empty()) {
        const double nothing = -std::numeric_limits<double>::infinity();
        hyps.push_back({{}, nothing, nothing, {}});
      }
      std::stable_sort(hyps.begin(), hyps.end(),
                       [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
      if (static_cast<int64_t>(hyps.size()) > options_.nbest) hyps.resize(options_.nbest);
    }
    return std::move(finished_);
  }

 private:
  // The 2*beam best one-token extensions of each live sentence (when
  // sampling: 2*beam drawn without replacement), in the order of their keys.
  Candidates top_candidates() {
    auto log_probs = scorer_.next_log_probs(prefixes_.tensor());
    std::vector<int64_t> row_sentence(static_cast<size_t>(log_probs.size(0)));
    for (size_t r = 0; r < row_sentence.size(); ++r) row_sentence[r] = live_[r / static_cast<size_t>(width_)];
    rules_.shape(log_probs, prefixes_.tensor(), row_sentence);
    Candidates c;
    c.vocab = log_probs.size(1);
    const auto sentences = static_cast<int64_t>(live_.size());
    const int64_t k = std::min(2 * options_.beam, width_ * c.vocab);
    if (rules_.sampling()) {
      const auto totals =
          (log_probs + sums_.to(log_probs.device()).unsqueeze(1)).view({sentences, width_ * c.vocab});
      const auto indices = std::get<1>(rules_.keys(totals, live_, t_).topk(k, 1));
      c.values = totals.gather(1, indices).to(torch::kCPU, torch::kFloat);
      c.indices = indices.to(torch::kCPU, torch::kLong);
    } else {
      std::tie(c.values, c.indices) = best_candidates(log_probs, sums_, width_, k);
    }
    return c;
  }

  // Sorts live sentence i's candidates into completed hypotheses and next rows.
  void advance_sentence(int64_t i, const Candidates& c, NextRows& next) {
    const int64_t s = live_[i], beam = options_.beam;
    const auto values = c.values.accessor<float, 2>();
    const auto indices = c.indices.accessor<int64_t, 2>();
    const size_t first = next.parents.size();
    int64_t kept = 0;
    for (int64_t j = 0; j < c.values.size(1) && (kept < beam || j < beam); ++j) {
      const double v = values[i][j];
      if (!std::isfinite(v)) break;  // sorted: the rest are forbidden tokens too
      const int64_t parent = i * width_ + indices[i][j] / c.vocab;
      const int64_t token = indices[i][j] % c.vocab;
      if (token == ids_.eos) {
        if (j < beam) {
          finished_[s].push_back(completed(prefixes_.tensor()[parent], v, options_));
          finished_[s].back().coverage = scorer_.coverage(parent);
        }
      } else if (kept < beam) {
        next.parents.push_back(parent);
        next.tokens.push_back(token);
        next.sums.push_back(static_cast<float>(v));
        ++kept;
      }
    }
    // Without a length penalty the exact rule alone (CTranslate2's too: its
    // top beam has finished): beam x patience finished hypotheses could end
    // the search while a live row still scores better than all of them.
    const bool enough = options_.length_penalty == 0 ? kept > 0 && none_can_win(s, next.sums[first])
                                                     : static_cast<int64_t>(finished_[s].size()) >= finished_wanted_;
    const bool done = enough || t_ + 1 >= max_lengths_[s] || kept == 0;
    if (done) {
      next.parents.resize(first);
      next.tokens.resize(first);
      next.sums.resize(first);
      return;
    }
    // A vocabulary smaller than the beam leaves gaps; dead rows keep the shape.
    for (; kept < beam; ++kept) {
      next.parents.push_back(next.parents.back());
      next.tokens.push_back(next.tokens.back());
      next.sums.push_back(-std::numeric_limits<float>::infinity());
    }
    next.live.push_back(s);
  }

  // Without a length penalty a hypothesis's score only falls as it grows:
  // once nbest finished ones score at least the best live row's sum
  // (best_live), nothing the search could still find would enter the n-best.
  bool none_can_win(int64_t s, double best_live) const {
    int64_t at_least = 0;
    for (const Hypothesis& h : finished_[s]) at_least += h.score >= best_live ? 1 : 0;
    return at_least >= options_.nbest;
  }

  StepScorer& scorer_;
  const std::vector<int64_t>& max_lengths_;
  const SearchIds& ids_;
  const SearchOptions& options_;
  const NextTokenRules rules_;
  const int64_t finished_wanted_;                  // beam x patience: hypotheses that end a sentence
  std::vector<std::vector<Hypothesis>> finished_;  // per sentence
  // Rows are grouped by sentence: rows [i * width_, (i + 1) * width_) belong to live_[i].
  std::vector<int64_t> live_;
  int64_t width_ = 1;       // 1 before the first step (all beams would be equal), then `beam`
  GrowingPrefixes prefixes_;  // [rows, t + 1] int64, CPU, bos first
  torch::Tensor sums_;      // [rows] summed log-probs, CPU float
  int64_t t_ = 0;           // tokens generated so far
};

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                                 const SearchOptions& options) {
  return BeamSearch(scorer, batch, ids, options).run();
}

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                                 const SearchIds& ids, const SearchOptions& options) {
  return beam_search(scorer, SearchBatch{max_lengths, {}, {}}, ids, options);
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                            const SearchOptions& options) {
  if (options.beam > 1) return beam_search(scorer, batch, ids, options);
  std::vector<std::vector<Hypothesis>> out;
  for (auto& h : greedy_search(scorer, batch, ids, options)) out.push_back({std::move(h)});
  return out;
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                            const SearchIds& ids, const SearchOptions& options) {
  return search(scorer, SearchBatch{max_lengths, {}, {}}, ids, options);
}

}  // namespace nmt::decode
