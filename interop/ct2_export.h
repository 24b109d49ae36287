// A model of ours as a CTranslate2 model directory (translator --export ct2
// --model DIR --out PATH), which CTranslate2's own Translator loads:
// model.bin (a TransformerSpec in binary version 6, float32 weights, the
// position table stored), config.json (special tokens, the source's sos and
// eos, the layer-norm epsilon), the vocabularies as JSON token lists in id
// order, and the SentencePiece models beside them as `source.spm` and
// `target.spm`, as OPUS-MT's conversions keep them (CTranslate2 itself reads
// tokens; its callers cut text with these).
#pragma once

#include <string>

#include "interop/ct2_model_file.h"
#include "storage/model_dir.h"
#include "storage/state_dict.h"

namespace nmt::interop {

// The decoder layer and heads whose attention replaces unknown tokens
// (storage::DecodingChoice): CTranslate2's defaults unless given (export_ct2
// gives the model's own, or for a model trained here the layer this program
// aligns by: the second-to-last, all heads).
struct Ct2Alignment {
  int64_t layer = -1, heads = 1;
};

// The model.bin variables of `model` under a TransformerSpec's names.
Ct2ModelFile ct2_transformer_file(model::TransformerImpl& model, Ct2Alignment alignment = {});

// Writes out_dir whole or not at all (a temporary directory renamed at the
// end); an existing out_dir is a UsageError.
void export_ct2(const storage::LoadedModel& loaded, const std::string& out_dir);

}  // namespace nmt::interop
