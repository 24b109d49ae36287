// Encodes a parallel corpus in order with every core: one thread reads the
// text in chunks, `threads` threads encode chunks as they come, and the
// caller's thread receives them in the corpus's order (to filter and write
// them). At most threads + 2 chunks (a few MB each) are in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::vocab {
class Vocab;
}

namespace nmt::data {

class ParallelReader;

struct EncodedChunk {
  std::string text;            // the pairs' text, copied out of the reader's buffers
  std::vector<size_t> bounds;  // 4 per pair: source begin/end, target begin/end in text
  std::vector<std::vector<int32_t>> src_ids, tgt_ids;
  std::vector<uint64_t> fingerprints;  // of each pair's two sides, to find duplicates
  std::vector<uint8_t> identical;      // whether a pair's sides are the same text
  std::vector<int64_t> over_byte_limit;  // line numbers of pairs left out before this chunk's pairs, in order

  size_t size() const { return bounds.size() / 4; }
  std::string_view src(size_t i) const { return piece(4 * i); }
  std::string_view tgt(size_t i) const { return piece(4 * i + 2); }

 private:
  std::string_view piece(size_t k) const {
    return std::string_view(text).substr(bounds[k], bounds[k + 1] - bounds[k]);
  }
};

// Runs the pipeline to the end of the reader. An exception in any thread
// stops the others and is rethrown here.
void encode_in_order(ParallelReader& reader, const vocab::Vocab& src_vocab,
                     const vocab::Vocab& tgt_vocab, int threads,
                     const std::function<void(const EncodedChunk&)>& consume);

}  // namespace nmt::data
