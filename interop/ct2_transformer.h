// CTranslate2 model directories of a TransformerSpec (sequence to sequence):
// model.bin (interop/ct2_model_file.h), config.json where present, and the
// vocabularies as `shared_vocabulary`, or `source_vocabulary` and
// `target_vocabulary`, each `.txt` (a token a line) or `.json` (an array).
//
// The spec's options become options of our model (pre- or post-norm, the
// final norms, embedding scale, stored or generated position encodings,
// shared embeddings, tied projection, layer-norm epsilon, source bos/eos);
// what our model cannot compute is refused, naming the option.
#pragma once

#include <string>

#include "interop/imported_model.h"

namespace nmt::interop {

// Whether dir holds a model.bin (a CTranslate2 model directory).
bool is_ct2_model_dir(const std::string& dir);

// Reads dir. A DataError (exit 3) names the file and what is wrong.
ImportedModel import_ct2_model(const std::string& dir);

}  // namespace nmt::interop
