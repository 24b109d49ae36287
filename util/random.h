// A small random generator whose output is fixed by this file alone, unlike
// std::shuffle and std::uniform_int_distribution whose algorithms differ
// between standard libraries. Data order must not depend on the toolchain,
// nor on torch's generator (which the model's dropout consumes).
#pragma once

#include <cstdint>
#include <utility>

namespace nmt {

// SplitMix64's increment (2^64 / the golden ratio) and its output function,
// a bijective 64-bit mix with good avalanche: the one hash every seeded
// stream of the project (data order, vocabulary sample, dropout) starts from.
constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One step of SplitMix64 from state x.
inline uint64_t splitmix64(uint64_t x) { return mix64(x + kGoldenGamma); }

// xoshiro256** seeded through splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : s_) word = seed = splitmix64(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n > 0, without modulo bias.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
      x = next();
    } while (x >= limit);
    return x % n;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// Fisher-Yates with Rng: the same permutation everywhere.
template <typename It>
void shuffle(It first, It last, Rng& rng) {
  const auto n = static_cast<uint64_t>(last - first);
  for (uint64_t i = n; i > 1; --i) {
    const uint64_t j = rng.below(i);
    using std::swap;
    swap(first[i - 1], first[j]);
  }
}

}  // namespace nmt
