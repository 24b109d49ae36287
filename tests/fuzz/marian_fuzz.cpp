// Marian's files on arbitrary bytes: the first byte picks the reader, the
// rest is the file. 0: a model.npz (the zip of .npy arrays, every header
// parsed and every array's size checked against its shape); 1: a YAML or
// JSON vocabulary (tokens and their ids). Every outcome is the result or a
// DataError, never a crash, a hang or an allocation a hostile header claims.
#include "fuzz_support.h"
#include "interop/marian_model.h"
#include "interop/npz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  nmt::fuzz::expect_only_our_errors([&] {
    if (data[0] % 2 == 0) {
      const auto npz = nmt::interop::parse_npz(bytes, "fuzz/model.npz");
      for (const auto& item : npz.arrays) (void)item.second.numel();
    } else {
      (void)nmt::interop::parse_marian_vocabulary(bytes, "fuzz/vocab.yml");
    }
  });
  return 0;
}
