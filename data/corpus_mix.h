// The training corpora of a run as one source of sentence pairs: each
// encoded corpus (data/encoded_corpus.h) with its weight in the mix and its
// optional tag, a token put after sos on every source sentence of that
// corpus (back-translations marked as such).
//
// An epoch is as many draws as all corpora hold pairs together (after
// filtering); corpus i gets weight_i / sum(weights) of them, its quota. A
// corpus draws its pairs pass after pass, each pass a new random order of all
// of them: one with a quota above its size repeats within the epoch, one with
// a quota below its size goes on in the next epoch where this one stopped, so
// that over the epochs every pair of a corpus is drawn equally often. With
// one corpus an epoch is one pass over it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nmt::data {

class EncodedCorpus;

struct MixSource {
  std::shared_ptr<const EncodedCorpus> corpus;
  double weight = 1;
  int32_t tag_id = -1;  // -1: untagged
  std::string name;     // in messages and metrics: the corpus's source file
};

// One pair of one corpus of the mix.
struct PairRef {
  uint32_t source = 0;
  uint32_t pair = 0;
  bool operator==(const PairRef& o) const { return source == o.source && pair == o.pair; }
};

class CorpusMix {
 public:
  // Throws nmt::DataError for no corpus, an empty one, a weight that is not
  // positive, or more than 2^32 - 1 pairs in one corpus.
  explicit CorpusMix(std::vector<MixSource> sources);
  static std::shared_ptr<const CorpusMix> of(std::shared_ptr<const EncodedCorpus> corpus);

  size_t size() const { return sources_.size(); }
  const MixSource& source(size_t i) const { return sources_[i]; }
  const EncodedCorpus& corpus(size_t i) const { return *sources_[i].corpus; }
  int64_t pairs() const { return pairs_; }              // over all corpora
  int64_t quota(size_t i) const { return quotas_[i]; }  // draws of corpus i in an epoch
  int64_t draws_per_epoch() const { return draws_; }
  double weight_share(size_t i) const { return sources_[i].weight / weights_; }  // weight / sum of weights
  // Corpora numbered one after the other: the first global index of corpus i.
  int64_t first_index(size_t i) const { return first_[i]; }

  // A pair's lengths as a batch holds them, without sos and eos: the source
  // with its tag.
  int64_t src_len(PairRef p) const;
  int64_t tgt_len(PairRef p) const;

 private:
  std::vector<MixSource> sources_;
  std::vector<int64_t> quotas_, first_;
  int64_t pairs_ = 0, draws_ = 0;
  double weights_ = 0;
};

}  // namespace nmt::data
