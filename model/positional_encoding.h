// Position table added to the token embeddings. By default the reference's
// fixed sinusoids, held as a buffer (not part of its state_dict); optionally a
// learned table, a parameter named `weight`.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace nmt::model {

// PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(same), float32.
torch::Tensor sinusoid_table(int64_t max_len, int64_t d_model);

class PositionalEncodingImpl : public torch::nn::Module {
 public:
  PositionalEncodingImpl(int64_t d_model, int64_t max_len, bool learned);

  // Rows [offset, offset + len) of the table: [len, d_model].
  torch::Tensor forward(int64_t len, int64_t offset = 0);

  int64_t max_len() const { return table_.size(0); }
  bool learned() const { return learned_; }
  // [max_len, d_model]: the sinusoid buffer or the learned parameter.
  const torch::Tensor& table() const { return table_; }

 private:
  bool learned_;
  torch::Tensor table_;
};
TORCH_MODULE(PositionalEncoding);

}  // namespace nmt::model
