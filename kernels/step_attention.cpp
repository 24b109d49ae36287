#include "kernels/step_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "kernels/vector_lanes.h"


namespace nmt::kernels {
namespace {

template <class Element>
NMT_INLINE float dot(const float* q, const Element* k, int64_t n) {
  Lanes partial = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) partial += load(q + i) * load(k + i);
  float sum = lanes_sum(partial);
  for (; i < n; ++i) sum += q[i] * static_cast<float>(k[i]);
  return sum;
}

template <class Element>
NMT_INLINE void add_scaled(float* out, float weight, const Element* v, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Lanes sum = load(out + i) + weight * load(v + i);
    std::memcpy(out + i, &sum, sizeof sum);
  }
  for (; i < n; ++i) out[i] += weight * static_cast<float>(v[i]);
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
NMT_INLINE int64_t source_row(const Task<Element>& t, int64_t position, int64_t row) {
  const auto* ancestry = t.memory->ancestry;
  return ancestry ? (*ancestry)[position * t.rows + row] : row / t.memory->group;
}

// Rows [begin, end), all heads of a row together: a position's keys (values)
// for every head lie side by side, and a sentence's beams, neighbouring rows,
// mostly read the same positions of their common ancestors. Scratch: `scores`
// heads x length floats, `sum` and `q` heads x d_head each.
template <class Element>
NMT_INLINE void attend_rows(const Task<Element>& t, int64_t begin, int64_t end, float* scores, float* sum, float* q) {
  const StepMemory& m = *t.memory;
  const int64_t heads = t.heads, d_head = t.d_head, length = m.length;
  const float scale = std::sqrt(static_cast<float>(d_head));
  for (int64_t row = begin; row < end; ++row) {
    const Element* query = t.q + row * t.q_row_stride;  // heads d_head apart
    for (int64_t i = 0; i < heads * d_head; ++i) q[i] = static_cast<float>(query[i]);
    for (int64_t p = 0; p < length; ++p) {
      const int64_t source = source_row(t, p, row);
      const bool hidden = t.valid && !t.valid[source * length + p];
      const Element* keys = t.keys + p * m.position_stride + source * m.row_stride;
      for (int64_t h = 0; h < heads; ++h) {
        scores[h * length + p] = hidden ? m.masked_score
                                        : dot(q + h * d_head, keys + h * m.head_stride, d_head) / scale;
      }
    }
    for (int64_t h = 0; h < heads; ++h) {  // softmax of each head's scores, in place
      float* head_scores = scores + h * length;
      const float top = *std::max_element(head_scores, head_scores + length);
      float total = 0.0f;
      for (int64_t p = 0; p < length; ++p) total += (head_scores[p] = std::exp(head_scores[p] - top));
      for (int64_t p = 0; p < length; ++p) head_scores[p] /= total;
    }
    std::fill(sum, sum + heads * d_head, 0.0f);
    for (int64_t p = 0; p < length; ++p) {
      const Element* values = t.values + p * m.position_stride + source_row(t, p, row) * m.row_stride;
      for (int64_t h = 0; h < heads; ++h) {
        const float weight = scores[h * length + p];
        if (weight != 0.0f) add_scaled(sum + h * d_head, weight, values + h * m.head_stride, d_head);
      }
    }
    Element* out = t.out + row * heads * d_head;
    for (int64_t i = 0; i < heads * d_head; ++i) out[i] = static_cast<Element>(sum[i]);  // rounded once
    if (t.weights) std::copy(scores, scores + heads * length, t.weights + row * heads * length);
  }
}

NMT_VECTOR_CLONES void attend_rows_fp32(const Task<float>& t, int64_t begin, int64_t end, float* scores, float* sum,
                                        float* q) {
  attend_rows(t, begin, end, scores, sum, q);
}

NMT_VECTOR_CLONES void attend_rows_bf16(const Task<c10::BFloat16>& t, int64_t begin, int64_t end, float* scores,
                                        float* sum, float* q) {
  attend_rows(t, begin, end, scores, sum, q);
}

template <class Element>
void run(const Task<Element>& t, void (*attend)(const Task<Element>&, int64_t, int64_t, float*, float*, float*)) {
  const int64_t length = t.memory->length, width = t.heads * t.d_head;
  // Enough rows per task that a task outweighs waking a thread.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, 2 * length * width));
  at::parallel_for(0, t.rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(static_cast<size_t>(t.heads * length + 2 * width));
    float* scores = scratch.data();
    attend(t, begin, end, scores, scores + t.heads * length, scores + t.heads * length + width);
  });
}

void check_layout(const torch::Tensor& q, const StepMemory& m) {
  TORCH_CHECK(q.dim() == 3, "step attention expects q [rows, head, d_head], got ", q.sizes());
  TORCH_CHECK(m.keys.scalar_type() == m.values.scalar_type(), "step attention: keys and values differ in dtype");
  TORCH_CHECK(m.length > 0, "step attention over an empty memory");
  TORCH_CHECK(m.group >= 1, "step attention: rows in groups of ", m.group);
  const int64_t rows = q.size(0), heads = q.size(1), d_head = q.size(2);
  if (m.ancestry) {
    TORCH_CHECK(static_cast<int64_t>(m.ancestry->size()) == m.length * rows, "step attention: ancestry of ",
                m.ancestry->size(), " entries for ", m.length, " positions x ", rows, " rows");
  }
  // The last element any (position, row, head) reaches must lie inside the
  // buffers. Ancestors may be rows that have left since (sentences finished).
  const int64_t max_source =
      m.ancestry ? *std::max_element(m.ancestry->begin(), m.ancestry->end()) : (rows - 1) / m.group;
  TORCH_CHECK(max_source >= 0, "step attention: a negative ancestor row");
  const int64_t last = (m.length - 1) * m.position_stride + max_source * m.row_stride +
                       (heads - 1) * m.head_stride + d_head;
  for (const auto* buffer : {&m.keys, &m.values}) {
    const int64_t reachable = static_cast<int64_t>(buffer->storage().nbytes()) / buffer->element_size() -
                              buffer->storage_offset();
    TORCH_CHECK(last <= reachable, "step attention: the layout reaches element ", last, " of ", reachable);
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
  if (q.dim() == 3 && q.size(0) == 0) {  // nothing to attend from
    if (weights) *weights = torch::empty({0, q.size(1), memory.length}, q.options().dtype(torch::kFloat));
    return torch::empty(q.sizes(), q.options().dtype(memory.keys.scalar_type()));
  }
  check_layout(q, memory);
  // Read in place where only the rows are apart (a slice of the stacked Q/K/V projection).
  // Each operator called costs ~1-2 us here, a fair share of a small step: only the conversions needed.
  auto queries = q.scalar_type() == memory.keys.scalar_type() ? q : q.to(memory.keys.scalar_type());
  if (queries.stride(2) != 1 || queries.stride(1) != q.size(2)) queries = queries.contiguous();
  const bool valid_ready = !memory.valid.defined() ||
                           (memory.valid.scalar_type() == torch::kBool && memory.valid.is_contiguous());
  const auto valid = valid_ready ? memory.valid : memory.valid.to(torch::kBool).contiguous();
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
    run(fill(static_cast<float*>(nullptr)), attend_rows_fp32);
  } else {
    TORCH_CHECK(keys.scalar_type() == torch::kBFloat16, "step attention keeps fp32 or bf16, not ", keys.scalar_type());
    run(fill(static_cast<c10::BFloat16*>(nullptr)), attend_rows_bf16);
  }
  return out;
}

}  // namespace nmt::kernels
