#include "decode/search_rules.h"

#include <algorithm>
#include <limits>

#include <torch/torch.h>

namespace nmt::decode {

std::vector<int64_t> repeating_tokens(const int64_t* tokens, int64_t length, int64_t n) {
  std::vector<int64_t> banned;
  if (n < 1 || length < n - 1) return banned;
  const int64_t* tail = tokens + length - (n - 1);  // the n-1 tokens a new one would follow
  for (int64_t i = 0; i + n - 1 < length; ++i) {   // an n-gram tokens[i, i + n) already there
    if (std::equal(tail, tail + n - 1, tokens + i)) banned.push_back(tokens[i + n - 1]);
  }
  return banned;
}

void penalize_repetitions(torch::Tensor& log_probs, const torch::Tensor& prefixes, double penalty,
                          const std::vector<bool>& force_eos) {
  const int64_t rows = prefixes.size(0), generated = prefixes.size(1) - 1;
  if (generated == 0) return;
  const auto p = prefixes.contiguous();
  std::vector<int64_t> hit_rows, hit_tokens, penalized;
  for (int64_t r = 0; r < rows; ++r) {
    if (force_eos[static_cast<size_t>(r)]) continue;
    const int64_t* row = p.data_ptr<int64_t>() + r * (generated + 1) + 1;  // after bos
    std::vector<int64_t> tokens(row, row + generated);
    std::sort(tokens.begin(), tokens.end());
    tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
    for (int64_t token : tokens) {
      hit_rows.push_back(r);
      hit_tokens.push_back(token);
    }
    penalized.push_back(r);
  }
  if (penalized.empty()) return;
  const auto device = log_probs.device();
  const auto r = torch::tensor(hit_rows, torch::kLong).to(device);
  const auto t = torch::tensor(hit_tokens, torch::kLong).to(device);
  log_probs.index_put_({r, t}, log_probs.index({r, t}) * penalty);
  const auto rows_index = torch::tensor(penalized, torch::kLong).to(device);
  auto renormalized = log_probs.index_select(0, rows_index).log_softmax(1);
  renormalized.masked_fill_(renormalized.isnan(), -std::numeric_limits<double>::infinity());
  log_probs.index_copy_(0, rows_index, renormalized.to(log_probs.scalar_type()));
}

void apply_search_rules(torch::Tensor& log_probs, const torch::Tensor& prefixes, const SearchOptions& options,
                        const SearchIds& ids, const std::vector<bool>& force_eos) {
  if (options.repetition_penalty != 1.0) penalize_repetitions(log_probs, prefixes, options.repetition_penalty, force_eos);
  if (options.min_length == 0 && options.no_repeat_ngram_size == 0) return;
  const int64_t rows = prefixes.size(0), generated = prefixes.size(1) - 1;
  const auto p = prefixes.contiguous();
  std::vector<int64_t> ban_rows, ban_tokens;
  for (int64_t r = 0; r < rows; ++r) {
    if (generated < options.min_length && !force_eos[static_cast<size_t>(r)]) {
      ban_rows.push_back(r);
      ban_tokens.push_back(ids.eos);
    }
    if (options.no_repeat_ngram_size == 0 || force_eos[static_cast<size_t>(r)]) continue;
    const int64_t* row = p.data_ptr<int64_t>() + r * (generated + 1) + 1;  // after bos
    for (int64_t token : repeating_tokens(row, generated, options.no_repeat_ngram_size)) {
      ban_rows.push_back(r);
      ban_tokens.push_back(token);
    }
  }
  if (ban_rows.empty()) return;
  const auto device = log_probs.device();
  log_probs.index_put_({torch::tensor(ban_rows, torch::kLong).to(device), torch::tensor(ban_tokens, torch::kLong).to(device)},
                       torch::tensor(-std::numeric_limits<float>::infinity(), log_probs.options()));
  // What is left of each row is a distribution again, as where CTranslate2
  // forbids the tokens before its softmax.
  std::vector<int64_t> rows_banned = ban_rows;
  rows_banned.erase(std::unique(rows_banned.begin(), rows_banned.end()), rows_banned.end());
  const auto rows_index = torch::tensor(rows_banned, torch::kLong).to(device);
  auto renormalized = log_probs.index_select(0, rows_index).log_softmax(1);
  renormalized.masked_fill_(renormalized.isnan(), -std::numeric_limits<double>::infinity());
  log_probs.index_copy_(0, rows_index, renormalized.to(log_probs.scalar_type()));
}

}  // namespace nmt::decode
