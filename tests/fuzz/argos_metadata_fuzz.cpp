// An Argos package's metadata.json on arbitrary bytes: the pair and the
// target_prefix, or a DataError, never a crash; what is read is a pair of
// language codes.
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "interop/argos_package.h"
#include "util/language_code.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  nmt::fuzz::expect_only_our_errors([&] {
    const auto m = nmt::interop::parse_argos_metadata(bytes, "fuzz");
    if (!nmt::is_language_code(m.from_code) || !nmt::is_language_code(m.to_code)) std::abort();
  });
  return 0;
}
