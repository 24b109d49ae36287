#include "model/attention_cache.h"

#include <algorithm>

#include <torch/torch.h>

namespace nmt::model {
namespace {

// `from` ([capacity, ...], positions [0, length) filled) moved into a buffer
// of `capacity` positions.
torch::Tensor regrown(const torch::Tensor& from, int64_t length, int64_t capacity) {
  auto sizes = from.sizes().vec();
  sizes[0] = capacity;
  auto to = torch::empty(sizes, from.options());
  if (length > 0) to.narrow(0, 0, length).copy_(from.narrow(0, 0, length));
  return to;
}

}  // namespace

void GrowingAttentionCache::append(const torch::Tensor& k, const torch::Tensor& v) {
  TORCH_CHECK(k.dim() == 4 && k.sizes() == v.sizes(), "cache append expects equal [rows, head, new, d_head], got ",
              k.sizes(), " and ", v.sizes());
  const auto time_major_k = k.permute({2, 0, 1, 3});  // [new, rows, head, d_head]
  const auto time_major_v = v.permute({2, 0, 1, 3});
  const int64_t fresh = time_major_k.size(0);
  if (length_ > 0) {
    TORCH_CHECK(k_.sizes().slice(1) == time_major_k.sizes().slice(1), "cache append: [rows, head, d_head] ",
                time_major_k.sizes().slice(1), " differs from the cache's ", k_.sizes().slice(1));
  }
  if (length_ == 0 || k_.size(0) < length_ + fresh) {
    const int64_t capacity = std::max<int64_t>(16, 2 * (length_ + fresh));
    if (length_ == 0) {
      auto sizes = time_major_k.sizes().vec();
      sizes[0] = capacity;
      k_ = torch::empty(sizes, k.options());
      v_ = torch::empty(sizes, v.options());
    } else {
      k_ = regrown(k_, length_, capacity);
      v_ = regrown(v_, length_, capacity);
    }
  }
  k_.narrow(0, length_, fresh).copy_(time_major_k);
  v_.narrow(0, length_, fresh).copy_(time_major_v);
  length_ += fresh;
}

torch::Tensor GrowingAttentionCache::keys() const { return k_.narrow(0, 0, length_).permute({1, 2, 0, 3}); }

torch::Tensor GrowingAttentionCache::values() const { return v_.narrow(0, 0, length_).permute({1, 2, 0, 3}); }

void GrowingAttentionCache::select_rows(const torch::Tensor& index) {
  if (empty()) return;
  auto pick = [&](torch::Tensor& buffer) {
    auto sizes = buffer.sizes().vec();
    sizes[1] = index.size(0);
    auto to = torch::empty(sizes, buffer.options());
    auto filled = to.narrow(0, 0, length_);  // contiguous: the leading dimension is time
    torch::index_select_out(filled, buffer.narrow(0, 0, length_), 1, index);
    buffer = to;
  };
  pick(k_);
  pick(v_);
}

void DecoderCache::select_target_rows(const torch::Tensor& index) {
  for (auto& layer : layers) layer.self_attention.select_rows(index);
}

void DecoderCache::select_memory_rows(const torch::Tensor& index) {
  for (auto& layer : layers) {
    auto& c = layer.enc_dec;
    if (c.empty()) continue;
    c.k = c.k.index_select(0, index);
    c.v = c.v.index_select(0, index);
  }
}

}  // namespace nmt::model
