// A CTranslate2 model directory: model.bin (interop/ct2_model_file.h),
// config.json where present, and the vocabularies as `shared_vocabulary`, or
// `source_vocabulary` and `target_vocabulary`, each `.txt` (a token a line)
// or `.json` (an array); with `source.spm` and `target.spm` (or one
// `sentencepiece.model`) beside them, text is cut by those SentencePiece
// models, else at spaces. The model itself is mapped onto ours by
// interop/ct2_transformer.h.
#pragma once

#include <string>

#include "interop/imported_model.h"

namespace nmt::interop {

// Whether dir holds a model.bin (a CTranslate2 model directory).
bool is_ct2_model_dir(const std::string& dir);

// Reads dir. A DataError (exit 3) names the file and what is wrong.
ImportedModel import_ct2_model(const std::string& dir);

}  // namespace nmt::interop
