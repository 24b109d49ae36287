// A CTranslate2 TransformerSpec (sequence to sequence) as our model: the
// model.bin of a directory (interop/ct2_directory.h), of an Argos Translate
// package, or Marian's parameters renamed to CTranslate2's.
//
// The spec's options become options of our model (pre- or post-norm, the
// final norms, embedding scale, stored or generated position encodings,
// shared embeddings, tied projection, layer-norm epsilon, source bos/eos);
// what our model cannot compute is refused, naming the option.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "interop/ct2_model_file.h"
#include "interop/imported_model.h"

namespace nmt::interop {

// CTranslate2's activation ids (common_spec.Activation) and our names
// (model.activation): 0 relu, 1 gelu_tanh, 2 swish, 3 gelu, 4 gelu_sigmoid;
// empty for an id without one (Tanh, Sigmoid).
std::string ct2_activation_name(double id);
int ct2_activation_id(const std::string& name);

// The model of a read model.bin with its config.json (an empty object when
// there is none), into `out`, whose origin and token lists (src_tokens,
// tgt_tokens, joint) the caller has set: what import_ct2_model does once it
// has read the directory's files, and what a package holding a CTranslate2
// model (Argos Translate) does with its own.
void import_ct2_transformer(const Ct2ModelFile& file, const nlohmann::json& config, ImportedModel& out);

}  // namespace nmt::interop
