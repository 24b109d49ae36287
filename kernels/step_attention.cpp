#include "kernels/step_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <torch/torch.h>

#include "kernels/scratch.h"
#include "kernels/step_team.h"
#include "kernels/vector_exp.h"
#include "kernels/vector_lanes.h"

namespace nmt::kernels {
namespace {

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
  Element* out;     // [rows, head, d_head]
  float* weights;   // [rows, head, length] or null
  float* coverage;  // [rows, length] or null: adds each position's weight averaged over heads
};

// One thread's working memory for a row: its scores and sums per head, its
// query in fp32, and where each position's keys and values start. Kept per
// thread between calls (a step makes one call per attention and layer), grown
// as needed.
struct RowScratch {
  std::vector<float> scores;  // [head, length]
  std::vector<float> sum, q;  // [head, d_head]
  std::vector<int64_t> at;    // [length]: element offset of position p of the row
  static RowScratch& of_this_thread(int64_t heads, int64_t d_head, int64_t length) {
    thread_local RowScratch s;
    grow_to(s.scores, heads * length);
    grow_to(s.sum, heads * d_head);
    grow_to(s.q, heads * d_head);
    grow_to(s.at, length);
    return s;
  }
};

typedef int32_t LaneIndex __attribute__((vector_size(kLanes * sizeof(int32_t))));

// Lane i of the result: the sum of v[i]'s lanes. A transposing reduction:
// each level adds two halves of every vector, packing two vectors' halves
// into one, so 16 sums take 15 additions and 30 shuffles instead of 16
// horizontal sums of 15 dependent additions each. Every lane is summed in
// the same order wherever its vector stands among the 16.
NMT_INLINE Lanes sums_of_16(const Lanes* v) {
  Lanes s1[8], s2[4], s3[2];
  for (int k = 0; k < 8; ++k) {  // lanes [8j, 8j + 8): 8 partial sums of v[2k + j]
    s1[k] =
        __builtin_shuffle(v[2 * k], v[2 * k + 1], LaneIndex{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23}) +
        __builtin_shuffle(v[2 * k], v[2 * k + 1],
                          LaneIndex{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31});
  }
  for (int k = 0; k < 4; ++k) {  // lanes [4j, 4j + 4): 4 partial sums of v[4k + j]
    s2[k] = __builtin_shuffle(s1[2 * k], s1[2 * k + 1],
                              LaneIndex{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27}) +
            __builtin_shuffle(s1[2 * k], s1[2 * k + 1],
                              LaneIndex{4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31});
  }
  for (int k = 0; k < 2; ++k) {  // lanes [2j, 2j + 2): 2 partial sums of v[8k + j]
    s3[k] = __builtin_shuffle(s2[2 * k], s2[2 * k + 1],
                              LaneIndex{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29}) +
            __builtin_shuffle(s2[2 * k], s2[2 * k + 1],
                              LaneIndex{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31});
  }
  return __builtin_shuffle(s3[0], s3[1], LaneIndex{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30}) +
         __builtin_shuffle(s3[0], s3[1], LaneIndex{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31});
}

// exp(v - top), 0 where v - top < kMinExpArg.
NMT_INLINE Lanes softmax_terms(Lanes v, float top) {
  const Lanes shifted = v - top;
  return shifted < kMinExpArg ? Lanes{} : exp_lanes<kLanes>(shifted);
}

// Softmax of n scores in place. Scores more than -kMinExpArg below the
// largest (masked ones among them) get weight 0 exactly.
NMT_INLINE void softmax_in_place(float* x, int64_t n) {
  const Lanes none = Lanes{} - std::numeric_limits<float>::infinity();
  Lanes top_lanes = none;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Lanes v = load(x + i);
    top_lanes = v > top_lanes ? v : top_lanes;
  }
  float top = max_of<kLanes>(top_lanes);
  for (int64_t j = i; j < n; ++j) top = std::max(top, x[j]);
  Lanes total_lanes = {};
  for (i = 0; i + kLanes <= n; i += kLanes) {
    const Lanes e = softmax_terms(load(x + i), top);
    std::memcpy(x + i, &e, sizeof e);
    total_lanes += e;
  }
  const auto rest = static_cast<size_t>(n - i) * sizeof(float);
  if (rest > 0) {  // the missing lanes weigh nothing
    Lanes v = none;
    std::memcpy(&v, x + i, rest);
    const Lanes e = softmax_terms(v, top);
    std::memcpy(x + i, &e, rest);
    total_lanes += e;
  }
  const Lanes total = Lanes{} + sum_of<kLanes>(total_lanes);
  for (i = 0; i + kLanes <= n; i += kLanes) {
    const Lanes w = load(x + i) / total;
    std::memcpy(x + i, &w, sizeof w);
  }
  for (; i < n; ++i) x[i] /= total[0];
}

// d_head elements of q and k multiplied and summed into 16 lanes (the
// elements past the last multiple of 16 into the first lanes). D: d_head
// known when compiled (the loop unrolled), or 0.
template <int D, class Element>
NMT_INLINE Lanes lane_products(const float* q, const Element* k, int64_t d_head) {
  const int64_t n = D > 0 ? D : d_head;
  Lanes partial = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) partial += load(q + i) * load(k + i);
  for (int j = 0; i < n; ++i, ++j) partial[j] += q[i] * static_cast<float>(k[i]);
  return partial;
}

// out[0, d_head) += weight * v[0, d_head).
template <int D, class Element>
NMT_INLINE void add_scaled(float* out, float weight, const Element* v, int64_t d_head) {
  const int64_t n = D > 0 ? D : d_head;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Lanes sum = load(out + i) + weight * load(v + i);
    std::memcpy(out + i, &sum, sizeof sum);
  }
  for (; i < n; ++i) out[i] += weight * static_cast<float>(v[i]);
}

// One head of one row: its scores over the positions (at[p]: where position
// p's keys start), 16 positions at a time, divided by the scale.
template <int D, class Element>
NMT_INLINE void head_scores(const float* q, const Element* keys, const int64_t* at, int64_t length, int64_t d_head,
                            float scale, float* scores) {
  Lanes block[kLanes];
  for (int64_t first = 0; first < length; first += kLanes) {
    const int n = static_cast<int>(std::min<int64_t>(kLanes, length - first));
    for (int i = 0; i < n; ++i) block[i] = lane_products<D>(q, keys + at[first + i], d_head);
    for (int i = n; i < kLanes; ++i) block[i] = Lanes{};
    const Lanes sums = sums_of_16(block) / scale;
    std::memcpy(scores + first, &sums, static_cast<size_t>(n) * sizeof(float));
  }
}

// One head of one row: the weighted sum of the values into sum[0, d_head),
// in registers where d_head is known when compiled (32 or 64).
template <int D, class Element>
NMT_INLINE void head_values(const float* weights, const Element* values, const int64_t* at, int64_t length,
                            int64_t d_head, float* sum) {
  if constexpr (D > 0 && D % kLanes == 0) {
    constexpr int kVectors = D / kLanes;
    Lanes acc[kVectors] = {};
    for (int64_t p = 0; p < length; ++p) {
      const float w = weights[p];
      if (w == 0.0f) continue;
      const Element* v = values + at[p];
      for (int c = 0; c < kVectors; ++c) acc[c] += w * load(v + c * kLanes);
    }
    std::memcpy(sum, acc, sizeof acc);
  } else {
    std::fill(sum, sum + d_head, 0.0f);
    for (int64_t p = 0; p < length; ++p) {
      if (weights[p] != 0.0f) add_scaled<D>(sum, weights[p], values + at[p], d_head);
    }
  }
}

template <class Element>
NMT_INLINE int64_t source_row(const Task<Element>& t, int64_t position, int64_t row) {
  const auto* ancestry = t.memory->ancestry;
  return ancestry ? (*ancestry)[position * t.rows + row] : row / t.memory->group;
}

// Rows [begin, end), one head at a time: where the row's positions lie is
// looked up once, then each head's scores, softmax and weighted sum run over
// them; a sentence's beams, neighbouring rows, mostly read the same positions
// of their common ancestors, still in the cache from the row before.
// coverage[p] += the mean over heads of weights[h][p].
NMT_INLINE void add_head_mean(const float* weights, int64_t heads, int64_t length, float* coverage) {
  const float share = 1.0f / static_cast<float>(heads);
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t p = 0; p < length; ++p) coverage[p] += share * weights[h * length + p];
  }
}

template <int D, class Element>
NMT_INLINE void attend_rows(const Task<Element>& t, int64_t begin, int64_t end, RowScratch& s) {
  const StepMemory& m = *t.memory;
  const int64_t heads = t.heads, d_head = t.d_head, length = m.length;
  const float scale = std::sqrt(static_cast<float>(d_head));
  float* scores = s.scores.data();
  int64_t* at = s.at.data();
  for (int64_t row = begin; row < end; ++row) {
    const Element* query = t.q + row * t.q_row_stride;  // heads d_head apart
    for (int64_t i = 0; i < heads * d_head; ++i) s.q[i] = static_cast<float>(query[i]);
    for (int64_t p = 0; p < length; ++p) at[p] = p * m.position_stride + source_row(t, p, row) * m.row_stride;
    for (int64_t h = 0; h < heads; ++h) {
      head_scores<D>(s.q.data() + h * d_head, t.keys + h * m.head_stride, at, length, d_head, scale,
                     scores + h * length);
    }
    if (t.valid) {
      for (int64_t p = 0; p < length; ++p) {
        if (t.valid[source_row(t, p, row) * length + p]) continue;
        for (int64_t h = 0; h < heads; ++h) scores[h * length + p] = m.masked_score;
      }
    }
    for (int64_t h = 0; h < heads; ++h) {
      softmax_in_place(scores + h * length, length);
      head_values<D>(scores + h * length, t.values + h * m.head_stride, at, length, d_head, s.sum.data() + h * d_head);
    }
    Element* out = t.out + row * heads * d_head;
    for (int64_t i = 0; i < heads * d_head; ++i) out[i] = static_cast<Element>(s.sum[i]);  // rounded once
    if (t.weights) std::copy(scores, scores + heads * length, t.weights + row * heads * length);
    if (t.coverage) add_head_mean(scores, heads, length, t.coverage + row * length);
  }
}

// d_head 64 (the base and recipe shapes) and 32 (the sample recipe's) with
// their loops unrolled; any other. Each sums in the same order as the other.
template <class Element>
NMT_INLINE void attend_rows_any(const Task<Element>& t, int64_t begin, int64_t end, RowScratch& s) {
  if (t.d_head == 64) {
    attend_rows<64>(t, begin, end, s);
  } else if (t.d_head == 32) {
    attend_rows<32>(t, begin, end, s);
  } else {
    attend_rows<0>(t, begin, end, s);
  }
}

NMT_INLINE void attend_rows_fp32_body(const Task<float>& t, int64_t begin, int64_t end, RowScratch& s) {
  attend_rows_any(t, begin, end, s);
}
NMT_VECTOR_DISPATCH(void, attend_rows_fp32, (const Task<float>& t, int64_t begin, int64_t end, RowScratch& s),
                    (t, begin, end, s))

NMT_INLINE void attend_rows_bf16_body(const Task<c10::BFloat16>& t, int64_t begin, int64_t end, RowScratch& s) {
  attend_rows_any(t, begin, end, s);
}
NMT_VECTOR_DISPATCH(void, attend_rows_bf16, (const Task<c10::BFloat16>& t, int64_t begin, int64_t end, RowScratch& s),
                    (t, begin, end, s))

template <class Element>
void run(const Task<Element>& t, void (*attend)(const Task<Element>&, int64_t, int64_t, RowScratch&)) {
  const int64_t length = t.memory->length, width = t.heads * t.d_head;
  // Enough rows per task that a task outweighs waking a thread.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, 2 * length * width));
  parallel_range(0, t.rows, grain, [&](int64_t begin, int64_t end) {
    attend(t, begin, end, RowScratch::of_this_thread(t.heads, t.d_head, length));
  });
}

void check_layout(int64_t rows, int64_t heads, int64_t d_head, const StepMemory& m) {
  TORCH_CHECK(m.keys.scalar_type() == m.values.scalar_type(), "step attention: keys and values differ in dtype");
  TORCH_CHECK(m.length > 0, "step attention over an empty memory");
  TORCH_CHECK(m.group >= 1, "step attention: rows in groups of ", m.group);
  if (m.ancestry) {
    TORCH_CHECK(static_cast<int64_t>(m.ancestry->size()) == m.length * rows, "step attention: ancestry of ",
                m.ancestry->size(), " entries for ", m.length, " positions x ", rows, " rows");
  }
  // The last element any (position, row, head) reaches must lie inside the
  // buffers. Ancestors may be rows that have left since (sentences finished).
  const int64_t max_source =
      m.ancestry ? *std::max_element(m.ancestry->begin(), m.ancestry->end()) : (rows - 1) / m.group;
  TORCH_CHECK(max_source >= 0, "step attention: a negative ancestor row");
  const int64_t last =
      (m.length - 1) * m.position_stride + max_source * m.row_stride + (heads - 1) * m.head_stride + d_head;
  for (const auto* buffer : {&m.keys, &m.values}) {
    const int64_t reachable =
        static_cast<int64_t>(buffer->storage().nbytes()) / buffer->element_size() - buffer->storage_offset();
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

torch::Tensor step_attention(const torch::Tensor& q, const StepMemory& memory, torch::Tensor* weights,
                             torch::Tensor* coverage) {
  // [rows, head, d_head]
  if (q.dim() == 3 && q.size(0) == 0) {  // nothing to attend from
    if (weights) *weights = torch::empty({0, q.size(1), memory.length}, q.options().dtype(torch::kFloat));
    return torch::empty(q.sizes(), q.options().dtype(memory.keys.scalar_type()));
  }
  TORCH_CHECK(q.dim() == 3, "step attention expects q [rows, head, d_head], got ", q.sizes());
  check_layout(q.size(0), q.size(1), q.size(2), memory);
  if (coverage) {
    TORCH_CHECK(coverage->scalar_type() == torch::kFloat && coverage->is_contiguous() && coverage->dim() == 2 &&
                    coverage->size(0) == q.size(0) && coverage->size(1) == memory.length,
                "step attention: coverage ", coverage->sizes(), " for ", q.size(0), " rows x ", memory.length,
                " positions");
  }
  // Read in place where only the rows are apart (a slice of the stacked Q/K/V projection).
  // Each operator called costs ~1-2 us here, a fair share of a small step: only the conversions needed.
  auto queries = q.scalar_type() == memory.keys.scalar_type() ? q : q.to(memory.keys.scalar_type());
  if (queries.stride(2) != 1 || queries.stride(1) != q.size(2)) queries = queries.contiguous();
  const bool valid_ready =
      !memory.valid.defined() || (memory.valid.scalar_type() == torch::kBool && memory.valid.is_contiguous());
  const auto valid = valid_ready ? memory.valid : memory.valid.to(torch::kBool).contiguous();
  auto out = torch::empty(q.sizes(), queries.options());
  if (weights) *weights = torch::empty({q.size(0), q.size(1), memory.length}, queries.options().dtype(torch::kFloat));
  const auto& keys = memory.keys;  // origins of the layout, not necessarily contiguous
  const auto& values = memory.values;
  auto fill = [&](auto* element) {
    using Element = std::remove_pointer_t<decltype(element)>;
    return Task<Element>{queries.data_ptr<Element>(),
                         queries.stride(0),
                         keys.data_ptr<Element>(),
                         values.data_ptr<Element>(),
                         &memory,
                         valid.defined() ? valid.data_ptr<bool>() : nullptr,
                         q.size(0),
                         q.size(1),
                         q.size(2),
                         out.data_ptr<Element>(),
                         weights ? weights->data_ptr<float>() : nullptr,
                         coverage ? coverage->data_ptr<float>() : nullptr};
  };
  if (keys.scalar_type() == torch::kFloat) {
    run(fill(static_cast<float*>(nullptr)), attend_rows_fp32);
  } else {
    TORCH_CHECK(keys.scalar_type() == torch::kBFloat16, "step attention keeps fp32 or bf16, not ", keys.scalar_type());
    run(fill(static_cast<c10::BFloat16*>(nullptr)), attend_rows_bf16);
  }
  return out;
}

void step_attention_rows(const float* q, int64_t q_row_stride, int64_t rows, int64_t heads, int64_t d_head,
                         const StepMemory& memory, float* out, float* coverage) {
  if (rows == 0) return;
  check_layout(rows, heads, d_head, memory);
  TORCH_CHECK(memory.keys.scalar_type() == torch::kFloat, "step attention on raw rows reads fp32 keys, not ",
              memory.keys.scalar_type());
  TORCH_CHECK(!memory.valid.defined() || (memory.valid.scalar_type() == torch::kBool && memory.valid.is_contiguous()),
              "step attention on raw rows needs its mask as contiguous bools");
  const Task<float> task{q,
                         q_row_stride,
                         memory.keys.data_ptr<float>(),
                         memory.values.data_ptr<float>(),
                         &memory,
                         memory.valid.defined() ? memory.valid.data_ptr<bool>() : nullptr,
                         rows,
                         heads,
                         d_head,
                         out,
                         nullptr,
                         coverage};
  run(task, attend_rows_fp32);
}

}  // namespace nmt::kernels
