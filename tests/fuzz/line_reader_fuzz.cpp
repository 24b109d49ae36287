// The corpus line reader on arbitrary bytes, plain and gzip-compressed, with
// a small byte limit so that long lines are common, under both long-line
// policies. Lines that come back must be valid UTF-8 within the limit.
#include <zlib.h>

#include <cstring>

#include "fuzz_support.h"
#include "text/line_reader.h"
#include "text/utf8.h"

namespace {

constexpr size_t kLimit = 64;

std::string gzip(const uint8_t* data, size_t size) {
  uLongf bound = compressBound(size) + 32;
  std::string out(bound, '\0');
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // +16: gzip framing
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void read_all(const std::string& path, nmt::text::LongLines policy) {
  nmt::text::LineReader reader(path, kLimit, policy);
  std::string_view line;
  while (reader.next(line)) {
    if (line.size() > kLimit || nmt::text::find_invalid_utf8(line) != line.size()) std::abort();
    if (reader.skipped() && !line.empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static nmt::fuzz::ScratchFile plain("lines.txt"), compressed("lines.gz");
  plain.write(data, size);
  const std::string gz = gzip(data, size);
  compressed.write(reinterpret_cast<const uint8_t*>(gz.data()), gz.size());
  for (const auto policy : {nmt::text::LongLines::kError, nmt::text::LongLines::kSkip}) {
    nmt::fuzz::expect_only_our_errors([&] { read_all(plain.path(), policy); });
    nmt::fuzz::expect_only_our_errors([&] { read_all(compressed.path(), policy); });
  }
  return 0;
}
