#include "data/corpus_mix.h"

#include <algorithm>
#include <cmath>

#include "data/encoded_corpus.h"
#include "util/error.h"

namespace nmt::data {

CorpusMix::CorpusMix(std::vector<MixSource> sources) : sources_(std::move(sources)) {
  if (sources_.empty()) throw DataError("No training corpus was given.");
  for (const MixSource& s : sources_) {
    if (!s.corpus || s.corpus->size() == 0) throw DataError("The training corpus " + s.name + " holds no pairs.");
    if (!(s.weight > 0) || !std::isfinite(s.weight)) {
      throw DataError("The weight of the corpus " + s.name + " must be a positive number (got " +
                      std::to_string(s.weight) + ").");
    }
    if (s.corpus->size() > static_cast<int64_t>(UINT32_MAX)) {
      throw DataError("The corpus " + s.name + " has " + std::to_string(s.corpus->size()) +
                      " pairs; at most 2^32 - 1 are supported in one corpus (split it in two).");
    }
    first_.push_back(pairs_);
    pairs_ += s.corpus->size();
    weights_ += s.weight;
  }
  for (const MixSource& s : sources_) {
    const auto share = static_cast<double>(pairs_) * s.weight / weights_;
    quotas_.push_back(std::max<int64_t>(1, std::llround(share)));
    draws_ += quotas_.back();
  }
}

std::shared_ptr<const CorpusMix> CorpusMix::of(std::shared_ptr<const EncodedCorpus> corpus) {
  MixSource s;
  s.name = corpus->path().empty() ? "the corpus" : corpus->path();
  s.corpus = std::move(corpus);
  return std::make_shared<const CorpusMix>(std::vector<MixSource>{std::move(s)});
}

int64_t CorpusMix::src_len(PairRef p) const {
  const MixSource& s = sources_[p.source];
  return s.corpus->src_len(p.pair) + (s.tag_id >= 0 ? 1 : 0);
}

int64_t CorpusMix::tgt_len(PairRef p) const { return sources_[p.source].corpus->tgt_len(p.pair); }

}  // namespace nmt::data
