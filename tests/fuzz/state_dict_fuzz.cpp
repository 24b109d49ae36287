// The state_dict loader (--init-state-dict, and the weights inside every
// checkpoint) on arbitrary bytes, then loading what it accepts into a small
// model: every outcome is a state_dict or a DataError, never a crash or an
// allocation of what a hostile header claims.
#include "fuzz_support.h"
#include "model/transformer.h"
#include "storage/state_dict.h"

namespace {

nmt::model::Transformer& small_model() {
  static nmt::model::Transformer model = [] {
    nmt::ModelConfig c;
    c.d_model = 8;
    c.n_head = 2;
    c.ffn_hidden = 16;
    c.n_layers = 1;
    c.max_len = 16;
    c.enc_voc_size = 12;
    c.dec_voc_size = 12;
    return nmt::model::Transformer(c);
  }();
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  nmt::fuzz::expect_only_our_errors([&] {
    const nmt::storage::StateDict dict = nmt::storage::state_dict_from_bytes(bytes, "fuzz.pt");
    nmt::storage::load_state_dict(*small_model(), dict, "fuzz.pt");
  });
  return 0;
}
