#include "model/step_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "model/scale_dot_product_attention.h"

// The loops below are written for the compiler to vectorize; GCC builds them
// for AVX-512 and AVX2 as well and picks at load time (the product is built
// for plain x86-64). Other compilers build the plain version.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define NMT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NMT_VECTOR_CLONES
#endif

namespace nmt::model {
namespace {

constexpr int kLanes = 16;  // independent partial sums: a vector register's worth at AVX-512

inline float to_float(float x) { return x; }

inline float to_float(c10::BFloat16 x) {
  const uint32_t bits = static_cast<uint32_t>(x.x) << 16;  // bf16 is fp32's upper half
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class Element>
inline float dot(const Element* q, const Element* k, int64_t n) {
  float partial[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) partial[j] += to_float(q[i + j]) * to_float(k[i + j]);
  }
  float sum = 0.0f;
  for (int j = 0; j < kLanes; ++j) sum += partial[j];
  for (; i < n; ++i) sum += to_float(q[i]) * to_float(k[i]);
  return sum;
}

template <class Element>
inline void add_scaled(float* out, float weight, const Element* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] += weight * to_float(v[i]);
}

// The inputs of one call, typed.
template <class Element>
struct Task {
  const Element* q;  // [rows, head, d_head], rows `q_row_stride` apart
  int64_t q_row_stride;
  const Element* keys;
  const Element* values;
  const StepMemory* memory;
  const bool* valid;  // [memory rows, length] or null
  int64_t rows, heads, d_head;
  Element* out;    // [rows, head, d_head]
  float* weights;  // [rows, head, length] or null
};

template <class Element>
inline int64_t source_row(const Task<Element>& t, int64_t position, int64_t row) {
  const auto* ancestry = t.memory->ancestry;
  return ancestry ? (*ancestry)[position * t.rows + row] : row / t.memory->group;
}

// (row, head) pairs [begin, end); `scores` holds `length` floats, `sum` d_head.
template <class Element>
inline void attend_pairs(const Task<Element>& t, int64_t begin, int64_t end, float* scores, float* sum) {
  const StepMemory& m = *t.memory;
  const float scale = std::sqrt(static_cast<float>(t.d_head));
  for (int64_t pair = begin; pair < end; ++pair) {
    const int64_t row = pair / t.heads, head = pair % t.heads;
    const Element* q = t.q + row * t.q_row_stride + head * t.d_head;
    float top = -INFINITY;
    for (int64_t p = 0; p < m.length; ++p) {
      const int64_t source = source_row(t, p, row);
      const bool hidden = t.valid && !t.valid[source * m.length + p];
      const int64_t at = p * m.position_stride + source * m.row_stride + head * m.head_stride;
      scores[p] = hidden ? static_cast<float>(kMaskedScore) : dot(q, t.keys + at, t.d_head) / scale;
      top = std::max(top, scores[p]);
    }
    float total = 0.0f;
    for (int64_t p = 0; p < m.length; ++p) total += (scores[p] = std::exp(scores[p] - top));
    std::fill(sum, sum + t.d_head, 0.0f);
    for (int64_t p = 0; p < m.length; ++p) {
      scores[p] /= total;
      if (scores[p] == 0.0f) continue;  // a hidden position
      const int64_t source = source_row(t, p, row);
      add_scaled(sum, scores[p], t.values + p * m.position_stride + source * m.row_stride + head * m.head_stride,
                 t.d_head);
    }
    Element* out = t.out + pair * t.d_head;
    for (int64_t i = 0; i < t.d_head; ++i) out[i] = static_cast<Element>(sum[i]);  // rounded once
    if (t.weights) std::copy(scores, scores + m.length, t.weights + pair * m.length);
  }
}

NMT_VECTOR_CLONES void attend_pairs_fp32(const Task<float>& t, int64_t begin, int64_t end, float* scores,
                                         float* sum) {
  attend_pairs(t, begin, end, scores, sum);
}

NMT_VECTOR_CLONES void attend_pairs_bf16(const Task<c10::BFloat16>& t, int64_t begin, int64_t end, float* scores,
                                         float* sum) {
  attend_pairs(t, begin, end, scores, sum);
}

template <class Element>
void run(const Task<Element>& t, void (*attend)(const Task<Element>&, int64_t, int64_t, float*, float*)) {
  const int64_t pairs = t.rows * t.heads, length = t.memory->length;
  // Enough pairs per task that a task outweighs waking a thread.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, 2 * length * t.d_head));
  at::parallel_for(0, pairs, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(static_cast<size_t>(length + t.d_head));
    attend(t, begin, end, scratch.data(), scratch.data() + length);
  });
}

void check_layout(const torch::Tensor& q, const StepMemory& m) {
  TORCH_CHECK(q.dim() == 3, "step attention expects q [rows, head, d_head], got ", q.sizes());
  TORCH_CHECK(m.keys.scalar_type() == m.values.scalar_type(), "step attention: keys and values differ in dtype");
  TORCH_CHECK(m.length > 0, "step attention over an empty memory");
  const int64_t rows = q.size(0), heads = q.size(1), d_head = q.size(2);
  // The last element any (position, row, head) reaches must lie inside the buffers.
  const int64_t max_source = m.ancestry ? rows - 1 : (rows - 1) / m.group;
  const int64_t last = (m.length - 1) * m.position_stride + max_source * m.row_stride +
                       (heads - 1) * m.head_stride + d_head;
  for (const auto* buffer : {&m.keys, &m.values}) {
    const int64_t reachable = static_cast<int64_t>(buffer->storage().nbytes()) / buffer->element_size() -
                              buffer->storage_offset();
    TORCH_CHECK(last <= reachable, "step attention: the layout reaches element ", last, " of ", reachable);
  }
  if (m.ancestry) {
    TORCH_CHECK(static_cast<int64_t>(m.ancestry->size()) == m.length * rows, "step attention: ancestry of ",
                m.ancestry->size(), " entries for ", m.length, " positions x ", rows, " rows");
  }
  if (m.valid.defined()) {
    TORCH_CHECK(m.valid.dim() == 2 && m.valid.size(1) == m.length && m.valid.size(0) > max_source,
                "step attention: mask ", m.valid.sizes(), " for ", m.length, " positions");
  }
}

}  // namespace

bool step_attention_supported(const torch::Tensor& q, const torch::Tensor& keys) {
  const auto floating = [](const torch::Tensor& t) {
    return t.scalar_type() == torch::kFloat || t.scalar_type() == torch::kBFloat16;
  };
  const bool needs_grad = torch::GradMode::is_enabled() && (q.requires_grad() || keys.requires_grad());
  return q.device().is_cpu() && keys.device().is_cpu() && floating(q) && floating(keys) && !needs_grad;
}

torch::Tensor step_attention(const torch::Tensor& q, const StepMemory& memory, torch::Tensor* weights) {
  // [rows, head, d_head]
  check_layout(q, memory);
  // Read in place where only the rows are apart (a slice of the stacked Q/K/V projection).
  auto queries = q.to(memory.keys.scalar_type());
  if (queries.stride(2) != 1 || queries.stride(1) != q.size(2)) queries = queries.contiguous();
  const auto valid = memory.valid.defined() ? memory.valid.to(torch::kBool).contiguous() : torch::Tensor();
  auto out = torch::empty(q.sizes(), queries.options());
  if (weights) *weights = torch::empty({q.size(0), q.size(1), memory.length}, queries.options().dtype(torch::kFloat));
  const auto& keys = memory.keys;  // origins of the layout, not necessarily contiguous
  const auto& values = memory.values;
  auto fill = [&](auto* element) {
    using Element = std::remove_pointer_t<decltype(element)>;
    return Task<Element>{queries.data_ptr<Element>(), queries.stride(0), keys.data_ptr<Element>(),
                         values.data_ptr<Element>(), &memory, valid.defined() ? valid.data_ptr<bool>() : nullptr,
                         q.size(0), q.size(1), q.size(2), out.data_ptr<Element>(),
                         weights ? weights->data_ptr<float>() : nullptr};
  };
  if (keys.scalar_type() == torch::kFloat) {
    run(fill(static_cast<float*>(nullptr)), attend_pairs_fp32);
  } else {
    TORCH_CHECK(keys.scalar_type() == torch::kBFloat16, "step attention keeps fp32 or bf16, not ", keys.scalar_type());
    run(fill(static_cast<c10::BFloat16*>(nullptr)), attend_pairs_bf16);
  }
  return out;
}

}  // namespace nmt::model
