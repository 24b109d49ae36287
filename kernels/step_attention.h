// Attention of one new decoder position per row to cached keys and values,
// for decoding on the CPU: one pass per (row, head) that reads the keys and
// values where the caches keep them. The general path (ScaleDotProductAttention
// through batched products) needs them as one strided matrix per (row, head),
// which cost a copy of the whole cache per layer and step - when beams change
// parents, to reorder the rows, and under bf16 again inside ATen's batched
// product - plus a dozen small operators per call. Here a row's keys may lie in
// other rows at earlier positions (the row it descends from), found through a
// table instead of moved; the scores, softmax and weighted sum run in fp32
// whatever the cache's dtype (fp32 or bf16), as autocast runs softmax, and
// the result is rounded once to the cache's dtype.
#pragma once

#include <limits>
#include <vector>

#include <torch/types.h>

namespace nmt::kernels {

// Where query row r finds its key and value at position p: element
//   p * position_stride + row(p, r) * row_stride + head * head_stride
// of `keys` / `values` starts d_head contiguous elements, where row(p, r) is
// `ancestry[p * rows + r]` when ancestry is given, else r / group.
struct StepMemory {
  torch::Tensor keys, values;  // same dtype (fp32 or bf16), on the CPU
  int64_t length = 0;          // positions
  int64_t position_stride = 0, row_stride = 0, head_stride = 0;
  const std::vector<int64_t>* ancestry = nullptr;  // [length][rows]
  int64_t group = 1;
  // Undefined, or [memory rows, length] bool indexed by row(p, r): false
  // hides position p (source padding): its score becomes `masked_score`
  // before the softmax. The model passes the value its attention fills
  // masked scores with (model::kMaskedScore), so that both paths give the
  // same weights; the default, -infinity, gives hidden positions weight 0
  // exactly (a row must then keep at least one position).
  torch::Tensor valid;
  float masked_score = -std::numeric_limits<float>::infinity();
};

// Whether step_attention can serve q ([rows, head, d_head] or any shape with
// those elements) against keys of this dtype: CPU tensors of fp32 or bf16,
// nothing that needs a gradient.
bool step_attention_supported(const torch::Tensor& q, const torch::Tensor& keys);

// q [rows, head, d_head] -> [rows, head, d_head] in the keys' dtype:
// softmax(q k^T / sqrt(d_head)) v per (row, head), q taken in the keys'
// dtype. `weights`, when given, receives the softmax [rows, head, length] (fp32).
// `coverage`, when given ([rows, length] fp32, contiguous), has each row's
// softmax averaged over heads added to it: attention mass summed over steps.
torch::Tensor step_attention(const torch::Tensor& q, const StepMemory& memory, torch::Tensor* weights = nullptr,
                             torch::Tensor* coverage = nullptr);

// The same on raw rows against fp32 keys and values (a decoding step's fused
// path, inference/decoder_step.h): q [rows, head * d_head], rows
// `q_row_stride` floats apart; out [rows, head * d_head] contiguous;
// coverage as above (null: none). memory.valid, where defined, must be
// contiguous bools. The same bits as step_attention.
void step_attention_rows(const float* q, int64_t q_row_stride, int64_t rows, int64_t heads, int64_t d_head,
                         const StepMemory& memory, float* out, float* coverage = nullptr);

}  // namespace nmt::kernels
