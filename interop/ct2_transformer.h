// CTranslate2 model directories of a TransformerSpec (sequence to sequence):
// model.bin (interop/ct2_model_file.h), config.json where present, and the
// vocabularies as `shared_vocabulary`, or `source_vocabulary` and
// `target_vocabulary`, each `.txt` (a token a line) or `.json` (an array);
// with `source.spm` and `target.spm` (or one `sentencepiece.model`) beside
// them, text is cut by those SentencePiece models, else at spaces.
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

// Whether dir holds a model.bin (a CTranslate2 model directory).
bool is_ct2_model_dir(const std::string& dir);

// Reads dir. A DataError (exit 3) names the file and what is wrong.
ImportedModel import_ct2_model(const std::string& dir);

// The model of a read model.bin with its config.json (an empty object when
// there is none), into `out`, whose origin and token lists (src_tokens,
// tgt_tokens, joint) the caller has set: what import_ct2_model does once it
// has read the directory's files, and what a package holding a CTranslate2
// model (Argos Translate) does with its own.
void import_ct2_transformer(const Ct2ModelFile& file, const nlohmann::json& config, ImportedModel& out);

}  // namespace nmt::interop
