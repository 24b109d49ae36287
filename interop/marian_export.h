// A model as a Marian model folder (translator --export marian --model DIR
// --out PATH), as OPUS-MT publishes them: model.npz (Marian's parameter
// names, float32, uncompressed, its options in special:model.yml),
// decoder.yml, the vocabularies as YAML maps (vocab.yml, or
// vocab.src.yml and vocab.trg.yml), and the SentencePiece models beside them
// as source.spm and target.spm.
//
// Marian computes one kind of Transformer: its decoder starts from a zero
// vector, embeddings are scaled by sqrt(d_model), sources end with </s> and
// have no start token, the activation is ReLU, Swish or GELU (sigmoid form).
// Models read from Marian, and fine-tuned from them, are such; any other is
// refused naming what Marian cannot express. Positions: Marian's sinusoids
// where the model has them, else the table as a trained one (Wpos).
#pragma once

#include <string>

#include "storage/model_dir.h"

namespace nmt::interop {

// Writes out_dir whole or not at all; an existing out_dir, or a model Marian
// cannot compute, is a UsageError.
void export_marian(const storage::LoadedModel& loaded, const std::string& out_dir);

}  // namespace nmt::interop
