#include "data/batch.h"

#include <algorithm>

#include <torch/torch.h>

#include "data/encoded_corpus.h"

namespace nmt::data {

Batch make_batch(const CorpusMix& mix, const PairRef* pairs, size_t count, const SpecialIds& ids) {
  int64_t s_max = 0, t_max = 0;  // full lengths, sos and eos included
  for (size_t r = 0; r < count; ++r) {
    s_max = std::max(s_max, source_tokens_of(mix.src_len(pairs[r]), ids.src));
    t_max = std::max(t_max, mix.tgt_len(pairs[r]) + 2);
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
    const PairRef p = pairs[r];
    const MixSource& source = mix.source(p.source);
    const EncodedCorpus& corpus = *source.corpus;
    batch.pair_indices[r] = mix.first_index(p.source) + p.pair;
    int64_t* srow = s + static_cast<int64_t>(r) * s_max;
    const int64_t sl = mix.src_len(p);
    const int64_t bos = ids.src.bos >= 0 ? 1 : 0;
    if (bos) srow[0] = ids.src.bos;
    if (source.tag_id >= 0) srow[bos] = source.tag_id;
    corpus.copy_src(p.pair, srow + bos + (source.tag_id >= 0 ? 1 : 0));
    if (ids.src.eos >= 0) srow[sl + bos] = ids.src.eos;
    int64_t* trow = t + static_cast<int64_t>(r) * t_max;
    const int64_t tl = corpus.tgt_len(p.pair);
    trow[0] = ids.tgt.bos;
    corpus.copy_tgt(p.pair, trow + 1);
    trow[tl + 1] = ids.tgt.eos;
    batch.src_tokens += source_tokens_of(sl, ids.src);
    batch.tgt_tokens += target_tokens_of(tl);
  }
  batch.src = src;
  batch.tgt_in = tgt.narrow(1, 0, t_max - 1).contiguous();
  batch.gold = tgt.narrow(1, 1, t_max - 1).contiguous();
  return batch;
}

}  // namespace nmt::data
