#include "kernels/attention_cache.h"

#include <algorithm>
#include <cstring>

#include <torch/torch.h>

namespace nmt::kernels {

void GrowingAttentionCache::reserve(int64_t length, int64_t rows) {
  if (k_.defined() && k_.size(1) >= length && k_.size(0) >= rows) return;
  const int64_t capacity = k_.defined() && k_.size(1) >= length ? k_.size(1) : std::max<int64_t>(16, 2 * length);
  const int64_t row_capacity = k_.defined() ? std::max(rows, k_.size(0)) : rows;
  auto regrown = [&](const torch::Tensor& from) {
    auto to = torch::empty({row_capacity, capacity, from.size(2), from.size(3)}, from.options());
    if (length_ > 0) to.narrow(0, 0, from.size(0)).narrow(1, 0, length_).copy_(from.narrow(1, 0, length_));
    return to;
  };
  k_ = regrown(k_);
  v_ = regrown(v_);
}

void GrowingAttentionCache::append(const torch::Tensor& k, const torch::Tensor& v) {
  TORCH_CHECK(k.dim() == 4 && k.sizes() == v.sizes(), "cache append expects equal [rows, head, new, d_head], got ",
              k.sizes(), " and ", v.sizes());
  const int64_t rows = k.size(0), fresh = k.size(2);
  if (length_ > 0) {
    TORCH_CHECK(rows == rows_ && k.size(1) == k_.size(2) && k.size(3) == k_.size(3),
                "cache append: [rows, head, d_head] [", rows, ", ", k.size(1), ", ", k.size(3),
                "] differs from the cache's [", rows_, ", ", k_.size(2), ", ", k_.size(3), "]");
  } else if (!k_.defined()) {
    k_ = torch::empty({rows, 0, k.size(1), k.size(3)}, k.options());
    v_ = torch::empty({rows, 0, v.size(1), v.size(3)}, v.options());
  }
  reserve(length_ + fresh, rows);
  k_.narrow(1, length_, fresh).narrow(0, 0, rows).copy_(k.permute({0, 2, 1, 3}));  // [rows, new, head, d_head]
  v_.narrow(1, length_, fresh).narrow(0, 0, rows).copy_(v.permute({0, 2, 1, 3}));
  for (int64_t p = 0; p < fresh; ++p) {
    for (int64_t r = 0; r < rows; ++r) ancestry_.push_back(r);
  }
  length_ += fresh;
  rows_ = rows;
}

void GrowingAttentionCache::append_step(const torch::Tensor& qkv, int64_t heads) {
  TORCH_CHECK(qkv.dim() == 3 && qkv.size(1) == 1 && qkv.size(2) % (3 * heads) == 0 && qkv.is_contiguous() &&
                  qkv.device().is_cpu(),
              "a step's cache append expects contiguous [rows, 1, 3 x d_model] on the CPU, got ", qkv.sizes());
  const int64_t rows = qkv.size(0), d_model = qkv.size(2) / 3;
  if (!k_.defined()) {
    k_ = torch::empty({rows, 0, heads, d_model / heads}, qkv.options());
    v_ = torch::empty({rows, 0, heads, d_model / heads}, qkv.options());
  }
  TORCH_CHECK((length_ == 0 || rows == rows_) && k_.size(2) == heads && k_.size(2) * k_.size(3) == d_model &&
                  k_.scalar_type() == qkv.scalar_type(),
              "a step's cache append: ", rows, " rows of ", d_model, " ", qkv.scalar_type(), " for a cache of ", rows_,
              " rows of ", k_.size(2) * k_.size(3), " ", k_.scalar_type());
  append_step_rows(static_cast<const char*>(qkv.data_ptr()), rows, d_model * qkv.element_size());
}

void GrowingAttentionCache::append_step(const float* qkv, int64_t rows, int64_t d_model, int64_t heads) {
  TORCH_CHECK(heads > 0 && d_model % heads == 0, "a step's cache append: ", d_model, " values in ", heads, " heads");
  if (!k_.defined()) {
    k_ = torch::empty({rows, 0, heads, d_model / heads}, torch::kFloat);
    v_ = torch::empty({rows, 0, heads, d_model / heads}, torch::kFloat);
  }
  TORCH_CHECK(k_.scalar_type() == torch::kFloat && (length_ == 0 || rows == rows_) && k_.size(2) == heads &&
                  k_.size(2) * k_.size(3) == d_model,
              "a step's cache append: ", rows, " fp32 rows of ", d_model, " in ", heads, " heads for a cache of ",
              rows_, " rows of ", k_.size(2) * k_.size(3), " ", k_.scalar_type(), " in ", k_.size(2), " heads");
  append_step_rows(reinterpret_cast<const char*>(qkv), rows, d_model * static_cast<int64_t>(sizeof(float)));
}

void GrowingAttentionCache::append_step_rows(const char* from, int64_t rows, int64_t part_bytes) {
  reserve(length_ + 1, rows);
  const auto bytes = static_cast<size_t>(part_bytes);
  auto* keys = static_cast<char*>(k_.data_ptr()) + length_ * k_.stride(1) * k_.element_size();
  auto* values = static_cast<char*>(v_.data_ptr()) + length_ * v_.stride(1) * v_.element_size();
  const auto row_bytes = static_cast<size_t>(k_.stride(0) * k_.element_size());  // a row's positions lie together
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(keys + r * row_bytes, from + (3 * r + 1) * bytes, bytes);
    std::memcpy(values + r * row_bytes, from + (3 * r + 2) * bytes, bytes);
    ancestry_.push_back(r);
  }
  ++length_;
  rows_ = rows;
}

torch::Tensor GrowingAttentionCache::gathered(const torch::Tensor& buffer) const {
  // [rows, head, length, d_head]
  std::vector<int64_t> flat(ancestry_.size());
  for (int64_t p = 0; p < length_; ++p) {
    for (int64_t r = 0; r < rows_; ++r) flat[p * rows_ + r] = ancestry_[p * rows_ + r] * buffer.size(1) + p;
  }
  const auto index = torch::tensor(flat, torch::kLong).to(buffer.device());
  const auto slots = buffer.view({-1, buffer.size(2), buffer.size(3)});  // [row capacity * capacity, head, d_head]
  return slots.index_select(0, index).view({length_, rows_, buffer.size(2), buffer.size(3)}).permute({1, 2, 0, 3});
}

torch::Tensor GrowingAttentionCache::keys() const { return gathered(k_); }

torch::Tensor GrowingAttentionCache::values() const { return gathered(v_); }

void GrowingAttentionCache::select_rows(const torch::Tensor& index) {
  if (empty()) return;
  const auto picked = index.to(torch::kCPU, torch::kLong).contiguous();
  const int64_t* at = picked.data_ptr<int64_t>();
  const int64_t new_rows = picked.numel();
  for (int64_t j = 0; j < new_rows; ++j) {
    TORCH_CHECK(at[j] >= 0 && at[j] < rows_, "cache row selection: index ", at[j], " outside [0, ", rows_, ")");
  }
  std::vector<int64_t> moved(static_cast<size_t>(length_ * new_rows));
  for (int64_t p = 0; p < length_; ++p) {
    for (int64_t j = 0; j < new_rows; ++j) moved[p * new_rows + j] = ancestry_[p * rows_ + at[j]];
  }
  ancestry_ = std::move(moved);
  rows_ = new_rows;
}

StepMemory GrowingAttentionCache::step_memory() const {
  TORCH_CHECK(!empty(), "step attention over an empty self-attention cache");
  StepMemory m;
  m.keys = k_;
  m.values = v_;
  m.length = length_;
  m.position_stride = k_.stride(1);
  m.row_stride = k_.stride(0);
  m.head_stride = k_.stride(2);
  m.ancestry = &ancestry_;
  return m;
}

StepMemory AttentionCache::step_memory(int64_t group, const torch::Tensor& mask) const {
  TORCH_CHECK(!empty() && k.stride(3) == 1 && k.strides() == v.strides(),
              "step attention needs the memory's keys and values with d_head contiguous and equal strides");
  StepMemory m;
  m.keys = k;
  m.values = v;
  m.length = k.size(2);
  m.position_stride = k.stride(2);
  m.row_stride = k.stride(0);
  m.head_stride = k.stride(1);
  m.group = group;
  if (mask.defined()) m.valid = mask.reshape({mask.size(0), mask.size(-1)});
  return m;
}

void DecoderCache::select_target_rows(const torch::Tensor& index) {
  for (auto& layer : layers) {
    layer.self_attention.select_rows(index);
    auto& coverage = layer.enc_dec.coverage;
    if (coverage.defined()) coverage = coverage.index_select(0, index.to(coverage.device()));
  }
}

void DecoderCache::select_memory_rows(const torch::Tensor& index) {
  for (auto& layer : layers) {
    auto& c = layer.enc_dec;
    if (c.empty()) continue;
    c.k = c.k.index_select(0, index);
    c.v = c.v.index_select(0, index);
  }
}

}  // namespace nmt::kernels
