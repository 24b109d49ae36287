// The SentencePiece model loader (through the bridge library) on arbitrary
// files; a model it accepts must then encode and decode a sentence.
#include "fuzz_support.h"
#include "vocab/sentencepiece_vocab.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static nmt::fuzz::ScratchFile file("spm.model");
  file.write(data, size);
  nmt::fuzz::expect_only_our_errors([&] {
    nmt::vocab::SentencePieceVocab vocab(file.path());
    const auto ids = vocab.encode("Ein Hund rennt über die Wiese, 3 Katzen schauen zu.");
    vocab.decode(ids);
    vocab.encode_pieces("ünïcödé ✓");
  });
  return 0;
}
