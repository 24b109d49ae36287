// The checkpoint reader on arbitrary files: whole (resume, averaging) and
// weights only (translating), and the integrity check used to pick what to
// resume from, which must agree with the full read.
#include "fuzz_support.h"
#include "storage/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static nmt::fuzz::ScratchFile file("checkpoint.pt");
  file.write(data, size);
  bool loaded = false;
  nmt::fuzz::expect_only_our_errors([&] {
    nmt::storage::load_checkpoint(file.path(), nmt::storage::CheckpointParts::kAll);
    loaded = true;
  });
  nmt::fuzz::expect_only_our_errors(
      [&] { nmt::storage::load_checkpoint(file.path(), nmt::storage::CheckpointParts::kWeights); });
  if (nmt::storage::checkpoint_is_intact(file.path()) != loaded) std::abort();
  return 0;
}
