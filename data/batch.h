// One padded batch of sentence pairs as the model consumes it. Both sides
// are wrapped like the reference: sos, tokens, eos (the source without sos
// or eos where the model reads none: model.source_bos, model.source_eos);
// the decoder reads the target without its last cell and is scored against
// it without its first.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "data/corpus_mix.h"

namespace nmt::data {

struct SideIds {
  int64_t pad = 1, bos = 2, eos = 3;  // bos or eos -1: not put around the source
  int64_t ends() const { return (bos >= 0 ? 1 : 0) + (eos >= 0 ? 1 : 0); }
};

struct SpecialIds {
  SideIds src, tgt;
};

struct Batch {
  torch::Tensor src;     // int64 [B, S]: sos, tokens, eos, pad...
  torch::Tensor tgt_in;  // int64 [B, T]: target[:-1], the decoder's input
  torch::Tensor gold;    // int64 [B, T]: target[1:]
  int64_t src_tokens = 0;  // non-pad cells of src (sos and eos included)
  int64_t tgt_tokens = 0;  // non-pad cells of gold: what the loss counts
  std::vector<int64_t> pair_indices;  // rows' pairs, numbered over the mix's corpora (CorpusMix::first_index)
};

// The non-pad cells a pair adds to a batch, as make_batch counts them (and
// the trainer's data-parallel ranks count the batches they skip): the source
// with its sos and eos, the gold target with eos.
inline int64_t source_tokens_of(int64_t source_length, const SideIds& src) { return source_length + src.ends(); }
inline int64_t target_tokens_of(int64_t target_length) { return target_length + 1; }

// Builds the tensors (on the CPU) for pairs[0, count) of the mix: sos, the
// corpus's tag if it has one, the source, eos.
Batch make_batch(const CorpusMix& mix, const PairRef* pairs, size_t count, const SpecialIds& ids);

}  // namespace nmt::data
