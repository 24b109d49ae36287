#include "data/batch.h"

#include <algorithm>

#include <torch/torch.h>

#include "data/encoded_corpus.h"

namespace nmt::data {

Batch make_batch(const EncodedCorpus& corpus, const uint32_t* pairs, size_t count, const SpecialIds& ids) {
  int64_t s_max = 0, t_max = 0;  // full lengths, sos and eos included
  for (size_t r = 0; r < count; ++r) {
    s_max = std::max(s_max, corpus.src_len(pairs[r]) + 2);
    t_max = std::max(t_max, corpus.tgt_len(pairs[r]) + 2);
  }
  const auto rows = static_cast<int64_t>(count);
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  torch::Tensor src = torch::full({rows, s_max}, ids.src.pad, opts);
  torch::Tensor tgt = torch::full({rows, t_max}, ids.tgt.pad, opts);
  int64_t* s = src.data_ptr<int64_t>();
  int64_t* t = tgt.data_ptr<int64_t>();
  Batch batch;
  batch.pair_indices.resize(count);
  for (size_t r = 0; r < count; ++r) {
    const uint32_t i = pairs[r];
    batch.pair_indices[r] = i;
    int64_t* srow = s + static_cast<int64_t>(r) * s_max;
    const int64_t sl = corpus.src_len(i);
    srow[0] = ids.src.bos;
    corpus.copy_src(i, srow + 1);
    srow[sl + 1] = ids.src.eos;
    int64_t* trow = t + static_cast<int64_t>(r) * t_max;
    const int64_t tl = corpus.tgt_len(i);
    trow[0] = ids.tgt.bos;
    corpus.copy_tgt(i, trow + 1);
    trow[tl + 1] = ids.tgt.eos;
    batch.src_tokens += source_tokens_of(sl);
    batch.tgt_tokens += target_tokens_of(tl);
  }
  batch.src = src;
  batch.tgt_in = tgt.narrow(1, 0, t_max - 1).contiguous();
  batch.gold = tgt.narrow(1, 1, t_max - 1).contiguous();
  return batch;
}

}  // namespace nmt::data
