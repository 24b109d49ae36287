// CTranslate2's model.bin reader on arbitrary bytes: a file it accepts has
// every variable widened to float32 and is then mapped onto our model with
// a small fixed vocabulary; every outcome is a model or a DataError, never a
// crash, a hang or an allocation of what a hostile header claims.
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "interop/ct2_model_file.h"
#include "interop/ct2_transformer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  nmt::fuzz::expect_only_our_errors([&] {
    const auto file = nmt::interop::parse_ct2_model_file(bytes, "fuzz/model.bin");
    for (const auto& item : file.variables) file.float32(item.first);
    nmt::interop::ImportedModel out;
    out.origin = "fuzz";
    out.src_tokens = {"<blank>", "<s>", "</s>", "a", "b", "c"};
    out.tgt_tokens = out.src_tokens;
    nmt::interop::import_ct2_transformer(file, nlohmann::json::object(), out);
  });
  return 0;
}
