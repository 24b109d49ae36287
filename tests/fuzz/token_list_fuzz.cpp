// Token-list vocabularies (CTranslate2's *_vocabulary.txt and .json) on
// arbitrary bytes, both forms: a list they accept must then encode and
// decode text.
#include "fuzz_support.h"
#include "vocab/token_list_vocab.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (bool json : {false, true}) {
    nmt::fuzz::expect_only_our_errors([&] {
      nmt::vocab::TokenListVocab vocab(nmt::vocab::parse_token_list(bytes, json, "fuzz"), "fuzz");
      const auto ids = vocab.encode("a  b <s> ünï </s> x");
      vocab.decode(ids);
      vocab.encode_with_offsets(bytes.substr(0, 64));
    });
  }
  return 0;
}
