#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "decode/greedy_search.h"
#include "decode/length_penalty.h"
#include "decode/next_token_rules.h"
#include "decode/search_step.h"
#include "decode/term_constraints.h"

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
  std::vector<ConstraintState> states;  // with constraints: per row
  // Drops the rows from `first` on (a sentence that is done).
  void truncate(size_t first) {
    parents.resize(first);
    tokens.resize(first);
    sums.resize(first);
    if (states.size() > first) states.resize(first);
  }
  // Repeats the last row as a dead one (-inf) until the sentence has `beam` rows.
  void pad(int64_t kept, int64_t beam) {
    for (; kept < beam; ++kept) {
      parents.push_back(parents.back());
      tokens.push_back(tokens.back());
      sums.push_back(-std::numeric_limits<float>::infinity());
      if (!states.empty()) states.push_back(states.back());
    }
  }
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
        batch_(batch),
        rules_(options, ids, batch),
        finished_wanted_(std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(options.beam) *
                                                                              options.patience - 1e-9)))),
        finished_(batch.size()),
        prefixes_(static_cast<int64_t>(batch.size()), ids.bos) {
    const auto n = static_cast<int64_t>(batch.size());
    for (int64_t s = 0; s < n; ++s) live_.push_back(s);
    sums_ = torch::zeros({n}, torch::kFloat);
    if (!batch.constraints.empty()) {
      for (int64_t s = 0; s < n; ++s) states_.emplace_back(batch.constraints[static_cast<size_t>(s)]);
      fallback_.resize(batch.size());
    }
  }

  std::vector<std::vector<Hypothesis>> run() {
    for (; !live_.empty(); ++t_) {
      const Candidates c = top_candidates();
      NextRows next;
      for (int64_t i = 0; i < static_cast<int64_t>(live_.size()); ++i) {
        if (batch_.constrained(static_cast<size_t>(live_[i]))) {
          advance_constrained(i, c, next);
        } else {
          advance_sentence(i, c, next);
        }
      }
      if (next.live.empty()) break;
      scorer_.select_rows(index_tensor(next.parents));
      prefixes_.extend(next.parents, next.tokens);
      sums_ = torch::tensor(next.sums, torch::kFloat);
      if (!states_.empty()) {
        states_ = std::move(next.states);
        attention_seen_.clear();
        for (int64_t parent : next.parents) attention_seen_.push_back(attention_now_[static_cast<size_t>(parent)]);
      }
      live_ = std::move(next.live);
      width_ = options_.beam;
    }
    for (size_t s = 0; s < finished_.size(); ++s) {
      auto& hyps = finished_[s];
      // No row met all its terms: the best that ended anyway, naming what it missed.
      if (hyps.empty() && !fallback_.empty()) hyps = std::move(fallback_[s]);
      // Rules that forbid every token (no_repeat_ngram_size 1 over a tiny
      // vocabulary) can end a sentence with nothing finished: an empty one.
      if (hyps.empty()) {
        const double nothing = -std::numeric_limits<double>::infinity();
        hyps.push_back({{}, nothing, nothing, {}, false, {}, {}});
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
    if (!states_.empty()) {
      log_probs_ = log_probs;
      attention_now_.assign(static_cast<size_t>(log_probs.size(0)), {});
    }
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
        if (j < beam && !(j > 0 && after_ct2_prefix(s))) {
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
      next.truncate(first);
      return;
    }
    // A vocabulary smaller than the beam leaves gaps; dead rows keep the shape.
    if (!states_.empty()) {
      for (int64_t k = 0; k < kept; ++k) next.states.emplace_back(states_[static_cast<size_t>(next.parents[first + k])]);
    }
    next.pad(kept, beam);
    next.live.push_back(s);
  }

  // advance_sentence for a sentence with terms to meet (decode/term_constraints.h).
  void advance_constrained(int64_t i, const Candidates& c, NextRows& next) {
    const int64_t s = live_[i], beam = options_.beam;
    const auto& terms = batch_.constraints[static_cast<size_t>(s)];
    const auto candidates = constrained_candidates(i, c, terms);
    const size_t first = next.parents.size();
    int64_t kept = 0, position = 0;
    float best_live = -std::numeric_limits<float>::infinity();
    for (size_t k : allocate_beam(candidates, 2 * beam)) {
      const auto& x = candidates[k];
      if (x.token == ids_.eos) {
        const bool first = position == 0;
        if (position++ < beam && (first || !after_ct2_prefix(s))) finish(s, x.parent, x.sum, finished_[s]);
        continue;
      }
      if (kept == beam) continue;
      ++position;
      next.parents.push_back(x.parent);
      next.tokens.push_back(x.token);
      next.sums.push_back(x.sum);
      next.states.push_back(x.state);
      best_live = std::max(best_live, x.sum);
      ++kept;
    }
    // Rows meet their terms at different steps (early ones end first): a
    // sentence ends only once no live row could still beat its n-best.
    const bool enough = kept > 0 && none_can_win(s, best_live / most_penalty(s));
    if (enough || t_ + 1 >= max_lengths_[s] || kept == 0) {
      next.truncate(first);
      return;
    }
    next.pad(kept, beam);
    next.live.push_back(s);
  }

  // Sentence i's candidates: the best extensions (an eos only where its row
  // met every term; the others' are kept aside as fallbacks), and for each
  // row its best token and the tokens that start or continue a term.
  std::vector<ConstrainedCandidate> constrained_candidates(int64_t i, const Candidates& c, const TermConstraints& terms) {
    const int64_t s = live_[i];
    const bool at_start = t_ == static_cast<int64_t>(batch_.prefix(static_cast<size_t>(s)).size());
    // Per row of the sentence: the terms its attention lets it start now.
    std::vector<std::vector<uint8_t>> may_start;
    for (int64_t b = 0; b < width_; ++b) may_start.push_back(terms_to_start(terms, step_attention(i * width_ + b)));
    const auto extended = [&](int64_t parent, int64_t token) {
      const auto& state = states_[static_cast<size_t>(parent)];
      return token == ids_.eos ? state : state.advanced(terms, token, at_start, &may_start[static_cast<size_t>(parent - i * width_)]);
    };
    const auto values = c.values.accessor<float, 2>();
    const auto indices = c.indices.accessor<int64_t, 2>();
    std::vector<ConstrainedCandidate> out;
    for (int64_t j = 0; j < c.values.size(1); ++j) {
      const float v = values[i][j];
      if (!std::isfinite(v)) break;
      const int64_t parent = i * width_ + indices[i][j] / c.vocab, token = indices[i][j] % c.vocab;
      if (token == ids_.eos && !states_[static_cast<size_t>(parent)].all_met()) {
        if (j < options_.beam) finish(s, parent, v, fallback_[s]);
        continue;
      }
      out.push_back({parent, token, v, extended(parent, token)});
    }
    const auto rows = log_probs_.narrow(0, i * width_, width_).to(torch::kCPU, torch::kFloat).contiguous();
    const auto lp = rows.accessor<float, 2>();
    const auto sums = sums_.accessor<float, 1>();
    const auto best_tensor = std::get<1>(rows.max(1));
    const auto best = best_tensor.accessor<int64_t, 1>();
    for (int64_t b = 0; b < width_; ++b) {
      const int64_t parent = i * width_ + b;
      const auto& state = states_[static_cast<size_t>(parent)];
      auto tokens = state.wanted(terms, at_start, &may_start[static_cast<size_t>(b)]);
      tokens.push_back(best[b]);
      if (state.all_met()) tokens.push_back(ids_.eos);
      for (int64_t token : tokens) {
        const float v = sums[parent] + lp[b][token];
        if (!std::isfinite(v) || (token == ids_.eos && !state.all_met())) continue;
        out.push_back({parent, token, v, extended(parent, token)});
      }
    }
    return out;
  }

  // Whether this is the first step after sentence s's target prefix, decoded
  // as CTranslate2 decodes it (SearchOptions::ctranslate2_prefix).
  bool after_ct2_prefix(int64_t s) const {
    const auto& prefix = batch_.prefix(static_cast<size_t>(s));
    return options_.ctranslate2_prefix && !prefix.empty() && t_ == static_cast<int64_t>(prefix.size());
  }

  // Row r's cross-attention at this step (what its coverage gained), keeping
  // its coverage so far for the next step; empty where the scorer tracks none.
  std::vector<float> step_attention(int64_t r) {
    auto& now = attention_now_[static_cast<size_t>(r)];
    now = scorer_.coverage(r);
    std::vector<float> step = now;
    if (static_cast<size_t>(r) < attention_seen_.size() && attention_seen_[static_cast<size_t>(r)].size() == step.size()) {
      for (size_t k = 0; k < step.size(); ++k) step[k] -= attention_seen_[static_cast<size_t>(r)][k];
    }
    return step;
  }

  // Row `parent` ended with eos at summed log-probability `sum`: a hypothesis
  // in `into` (the sentence's finished ones, or its fallbacks).
  void finish(int64_t s, int64_t parent, float sum, std::vector<Hypothesis>& into) {
    into.push_back(completed(prefixes_.tensor()[parent], sum, options_));
    into.back().coverage = scorer_.coverage(parent);
    into.back().unmet_terms = states_[static_cast<size_t>(parent)].unmet(batch_.constraints[static_cast<size_t>(s)]);
  }

  // The largest length penalty a row of sentence s can still end with (its
  // summed log-probability only falls, so sum / this bounds its score).
  double most_penalty(int64_t s) const {
    const auto& o = options_;
    return std::max({length_penalty(t_ + 2, o.length_penalty, o.length_penalty_form),
                     length_penalty(max_lengths_[s], o.length_penalty, o.length_penalty_form), 1e-9});
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
  const SearchBatch& batch_;
  const NextTokenRules rules_;
  const int64_t finished_wanted_;                  // beam x patience: hypotheses that end a sentence
  std::vector<std::vector<Hypothesis>> finished_;  // per sentence
  // Rows are grouped by sentence: rows [i * width_, (i + 1) * width_) belong to live_[i].
  std::vector<int64_t> live_;
  int64_t width_ = 1;       // 1 before the first step (all beams would be equal), then `beam`
  GrowingPrefixes prefixes_;  // [rows, t + 1] int64, CPU, bos first
  torch::Tensor sums_;      // [rows] summed log-probs, CPU float
  int64_t t_ = 0;           // tokens generated so far
  // With constraints: each row's standing with its sentence's terms, the
  // step's shaped log-probabilities, and per sentence the hypotheses that
  // ended without meeting them all (used only where none did).
  std::vector<ConstraintState> states_;
  torch::Tensor log_probs_;
  // Per row: its cross-attention coverage at this step and at the one before.
  std::vector<std::vector<float>> attention_now_, attention_seen_;
  std::vector<std::vector<Hypothesis>> fallback_;
};

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                                 const SearchOptions& options) {
  return BeamSearch(scorer, batch, ids, options).run();
}

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                                 const SearchIds& ids, const SearchOptions& options) {
  return beam_search(scorer, SearchBatch{max_lengths, {}, {}, {}}, ids, options);
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const SearchBatch& batch, const SearchIds& ids,
                                            const SearchOptions& options) {
  // Terms to meet need rows to spare: beam search even at beam 1.
  const bool constrained = !batch.constraints.empty();
  if (options.beam > 1 || constrained) return beam_search(scorer, batch, ids, options);
  std::vector<std::vector<Hypothesis>> out;
  for (auto& h : greedy_search(scorer, batch, ids, options)) out.push_back({std::move(h)});
  return out;
}

std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, const std::vector<int64_t>& max_lengths,
                                            const SearchIds& ids, const SearchOptions& options) {
  return search(scorer, SearchBatch{max_lengths, {}, {}, {}}, ids, options);
}

}  // namespace nmt::decode
