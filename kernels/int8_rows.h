// Rows of activations to int8 and products' int32 sums back to fp32: the two
// passes around an int8 matrix product (kernels/packed_linear.h) whose weights
// are quantized per output row and whose inputs are quantized per input row,
// both symmetric (zero maps to zero, values in [-127, 127]).
#pragma once

#include <cstdint>

namespace nmt::kernels {

// Each row r of x [rows, n] as q [rows, n] with q * scales[r] ~ x:
// scales[r] = max |x[r]| / 127 and q = x * (127 / max |x[r]|) rounded to
// nearest (ties to even); a row of zeros gets scale 0 and zeros.
void quantize_rows(const float* x, int64_t rows, int64_t n, int8_t* q, float* scales);

// The same values plus 128, as unsigned bytes, in rows of `padded` (>= n)
// bytes whose last padded - n hold 128 (a zero): what the VNNI step product
// reads (kernels/int8_step_product.h), in one pass over x.
void quantize_rows_shifted(const float* x, int64_t rows, int64_t n, int64_t padded, uint8_t* u, float* scales);

// out[r][c] = sums[r][c] * (row_scales[r] * col_scales[c]) + bias[c] for
// sums [rows, n] (bias may be null: none), then max(0, .) with `relu`.
// Rows are split over ATen's threads when there are many values.
void dequantize_rows(const int32_t* sums, int64_t rows, int64_t n, const float* row_scales, const float* col_scales,
                     const float* bias, bool relu, float* out);

}  // namespace nmt::kernels
