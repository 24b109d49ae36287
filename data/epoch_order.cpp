#include "data/epoch_order.h"

#include "data/encoded_corpus.h"
#include "util/random.h"

namespace nmt::data {
namespace {

uint64_t stream_key(uint64_t seed, uint64_t what, uint64_t a, uint64_t b) {
  return mix64(splitmix64(seed) ^ mix64(what * kGoldenGamma + a) ^ mix64(~b));
}

constexpr uint64_t kPositions = 0x706F73, kPasses = 0x70617373;  // "pos", "pass"

}  // namespace

EpochOrder::EpochOrder(const CorpusMix& mix, uint64_t seed, int64_t epoch)
    : mix_(mix),
      seed_(seed),
      epoch_(epoch),
      positions_(static_cast<uint64_t>(mix.draws_per_epoch()), stream_key(seed, kPositions, static_cast<uint64_t>(epoch), 0)) {}

PairRef EpochOrder::at(uint64_t position) const {
  auto slot = static_cast<int64_t>(positions_(position));
  size_t source = 0;
  while (slot >= mix_.quota(source)) slot -= mix_.quota(source++);
  const auto n = static_cast<uint64_t>(mix_.corpus(source).size());
  const uint64_t draw = static_cast<uint64_t>(epoch_) * static_cast<uint64_t>(mix_.quota(source)) +
                        static_cast<uint64_t>(slot);
  const PseudoPermutation pass(n, stream_key(seed_, kPasses + source, draw / n, source));
  return {static_cast<uint32_t>(source), static_cast<uint32_t>(pass(draw % n))};
}

}  // namespace nmt::data
