#include "decode/next_token_rules.h"

#include <limits>
#include <stdexcept>
#include <string>

#include <torch/torch.h>

#include "decode/sampling.h"
#include "decode/search_rules.h"
#include "decode/search_step.h"

namespace nmt::decode {

NextTokenRules::NextTokenRules(const SearchOptions& options, const SearchIds& ids, const SearchBatch& batch)
    : options_(options), ids_(ids), batch_(batch), sampling_(sampling_enabled(options)) {
  batch.check();
  for (size_t s = 0; s < batch.size(); ++s) {
    const auto prefix = static_cast<int64_t>(batch.prefix(s).size());
    if (prefix > 0 && batch.max_lengths[s] <= prefix) {
      throw std::invalid_argument("Sentence " + std::to_string(s) + "'s target prefix of " + std::to_string(prefix) +
                                  " tokens leaves no room within its output limit of " +
                                  std::to_string(batch.max_lengths[s]) + " tokens.");
    }
  }
}

void NextTokenRules::shape(torch::Tensor& log_probs, const torch::Tensor& prefixes,
                           const std::vector<int64_t>& row_sentence) const {
  const int64_t t = prefixes.size(1) - 1;  // tokens generated so far
  std::vector<bool> force_eos(row_sentence.size());
  std::vector<int64_t> prefix_rows, prefix_tokens, free_rows;
  for (size_t r = 0; r < row_sentence.size(); ++r) {
    const auto s = static_cast<size_t>(row_sentence[r]);
    force_eos[r] = t + 1 >= batch_.max_lengths[s];
    const auto& prefix = batch_.prefix(s);
    if (t < static_cast<int64_t>(prefix.size())) {
      prefix_rows.push_back(static_cast<int64_t>(r));
      prefix_tokens.push_back(prefix[static_cast<size_t>(t)]);
    } else if (!force_eos[r]) {
      free_rows.push_back(static_cast<int64_t>(r));
    }
  }
  const auto device = log_probs.device();
  torch::Tensor forced_rows, forced_tokens, forced_values;
  if (!prefix_rows.empty()) {
    forced_rows = index_tensor(prefix_rows).to(device);
    forced_tokens = index_tensor(prefix_tokens).to(device);
    forced_values = log_probs.index({forced_rows, forced_tokens});
    if (options_.ctranslate2_prefix) forced_values.zero_();
  }
  restrict_next_tokens(log_probs, ids_, force_eos);
  apply_search_rules(log_probs, prefixes, options_, ids_, force_eos);
  if (sampling_ && !free_rows.empty()) {
    if (free_rows.size() == row_sentence.size()) {
      log_probs = sampling_distribution(log_probs, options_);
    } else {
      const auto rows = index_tensor(free_rows).to(device);
      log_probs.index_copy_(0, rows, sampling_distribution(log_probs.index_select(0, rows), options_));
    }
  }
  if (!prefix_rows.empty()) {
    log_probs.index_fill_(0, forced_rows, -std::numeric_limits<double>::infinity());
    log_probs.index_put_({forced_rows, forced_tokens}, forced_values);
  }
}

torch::Tensor NextTokenRules::keys(const torch::Tensor& scores, const std::vector<int64_t>& sentences,
                                   int64_t t) const {
  if (!sampling_) return scores;
  std::vector<uint64_t> streams;
  streams.reserve(sentences.size());
  for (int64_t s : sentences) {
    // Without keys (a caller that has no sources to key by): the seed and the sentence's place.
    const uint64_t key = batch_.sample_keys.empty() ? sample_key(options_.seed, {s}, {})
                                                    : batch_.sample_keys[static_cast<size_t>(s)];
    streams.push_back(noise_stream(key, t));
  }
  return add_gumbel_noise(scores, streams);
}

}  // namespace nmt::decode
