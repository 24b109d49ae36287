// A bf16, fp32 or int8 linear map for inference on the CPU whose weights
// oneDNN holds packed in its own blocked layout, ready for its matrix-product
// kernel.
// ATen's bf16 product receives plain weights at every call and oneDNN copies
// them into that layout each time; for decoding's small products (4 to 128
// rows) that copy costs as much as the product (oneDNN alone, packed vs plain
// bf16 weights: 1.05-1.4x faster at 128 rows, 1.3-1.5x at 32, 3-4x at 4). In
// fp32 every product, at any row count, is a kernel of ours on weights it
// packed itself (kernels/step_product.h), neither oneDNN's nor OpenBLAS's,
// whose kernels and splits change with the row count: a row gives the same
// bits in any batch and at any thread count. In int8 (dtype kChar) the
// weights are quantized per output and each call's inputs per row
// (kernels/int8_rows.h), the int8 products are summed in int32 (exact, so in
// any order: by a VNNI kernel of ours where the CPU has AVX-512 VNNI,
// kernels/int8_step_product.h, else by oneDNN), and the sums are scaled
// back to fp32: inputs, bias and outputs stay fp32.
#pragma once

#include <memory>
#include <string>

#include <torch/types.h>

namespace nmt::kernels {

class PackedLinear {
 public:
  // True when the project was built with oneDNN's API (libdnnl-dev) and this
  // CPU runs oneDNN's product in `dtype` (bf16 needs AVX-512; kChar: int8);
  // otherwise callers keep ATen's product.
  static bool available(c10::ScalarType dtype);
  // The ISA oneDNN's kernels run with here ("AVX-512 core with VNNI", ...;
  // capped by ONEDNN_MAX_CPU_ISA), or why there is none.
  static std::string onednn_isa();

  // weight [out, in] and bias [out] (undefined: none) in any floating dtype;
  // they are copied (as `dtype`: bf16, fp32, or kChar: int8 weights and an
  // fp32 bias) and packed once.
  PackedLinear(const torch::Tensor& weight, const torch::Tensor& bias, c10::ScalarType dtype = c10::kBFloat16);
  ~PackedLinear();
  PackedLinear(const PackedLinear&) = delete;
  PackedLinear& operator=(const PackedLinear&) = delete;

  // [..., in] (any floating dtype, cast to the packed dtype) -> [..., out]
  // in that dtype (int8: fp32 in and out); for bf16 the products and sums run
  // in fp32, rounded once to bf16 as autocast's linear is.
  // With `relu`, max(0, .) is applied before that rounding (the same result,
  // since rounding keeps the sign), inside the product's pass over the output.
  // Thread-safe: batches may be decoded concurrently.
  torch::Tensor forward(const torch::Tensor& x, bool relu = false) const;
  // The same product on raw rows for the fp32 and int8 dtypes (whose inputs
  // and outputs are fp32): x [rows, in] -> out [rows, out], both contiguous,
  // no tensor made (a decoding step's fused path, inference/decoder_step.h).
  // The same bits as forward. bf16 (bf16 outputs) is refused.
  void forward_rows(const float* x, int64_t rows, float* out, bool relu = false) const;
  // bf16, fp32 or kChar (int8).
  c10::ScalarType dtype() const;
  // The most rows forward_rows runs on this library's own kernels
  // (kernels/step_product.h: fp32, any number; kernels/int8_step_product.h:
  // int8, any number where the CPU has VNNI, else none) rather than
  // oneDNN's product, which a step team would leave on one thread.
  int64_t step_kernel_rows() const;

  int64_t in_features() const;
  int64_t out_features() const;

 private:
  struct State;
  struct Call;
  std::shared_ptr<Call> call_for(int64_t rows, bool relu) const;
  void forward_int8(const float* x, int64_t rows, bool relu, float* out) const;
  // oneDNN's product of `rows` rows from src into dst, both in its dtype's layout.
  void run_onednn(const void* src, int64_t rows, bool relu, void* dst) const;
  std::unique_ptr<State> state_;
};

}  // namespace nmt::kernels
