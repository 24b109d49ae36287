#include "model/positional_encoding.h"

#include <torch/torch.h>

namespace nmt::model {

torch::Tensor sinusoid_table(int64_t max_len, int64_t d_model) {
  // Same float32 operations in the same order as the reference, so the table
  // matches it bit for bit.
  auto encoding = torch::zeros({max_len, d_model});
  auto pos = torch::arange(0, max_len).to(torch::kFloat).unsqueeze(1);
  auto two_i = torch::arange(0, d_model, 2).to(torch::kFloat);
  auto denom = torch::pow(10000.0, two_i / static_cast<double>(d_model));
  using torch::indexing::Slice;
  using torch::indexing::None;
  encoding.index_put_({Slice(), Slice(0, None, 2)}, torch::sin(pos / denom));
  const int64_t n_odd = d_model / 2;
  encoding.index_put_({Slice(), Slice(1, None, 2)}, torch::cos(pos / denom).narrow(1, 0, n_odd));
  return encoding;
}

PositionalEncodingImpl::PositionalEncodingImpl(int64_t d_model, int64_t max_len, bool learned) : learned_(learned) {
  if (learned) {
    table_ = register_parameter("weight", torch::randn({max_len, d_model}) * 0.02);
  } else {
    table_ = register_buffer("encoding", sinusoid_table(max_len, d_model));
  }
}

torch::Tensor PositionalEncodingImpl::forward(int64_t len, int64_t offset) {
  // [len, d_model]
  TORCH_CHECK(offset >= 0 && offset + len <= table_.size(0), "positions ", offset, "..", offset + len,
              " exceed model.max_len ", table_.size(0));
  return table_.narrow(0, offset, len);
}

}  // namespace nmt::model
