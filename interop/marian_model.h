// Marian model folders, as OPUS-MT publishes them: decoder.yml naming the
// model (.npz) and the vocabularies (vocab.yml, or one per side; .json maps
// and SentencePiece models (.spm) as Marian also takes), with source.spm and
// target.spm beside to cut text when the vocabularies are YAML.
//
// The model's options come from its own "special:model.yml": a transformer
// with self-attention in the decoder, pre- or post-norm (Marian's "n"/"da"/
// top "n", or ""/"dan"), ReLU, Swish or GELU, its sinusoidal positions
// (counting from 0) or trained ones, tied embeddings (all, source, or decoder
// and output), the output bias, sqrt(d_model) embedding scale, and a decoder
// that starts from a zero vector; sources end with </s>. They become options
// of our model; what it cannot compute is refused, naming the option.
// Parameter names and the arithmetic follow CTranslate2's Marian converter,
// the check the tests use.
#pragma once

#include <string>
#include <vector>

#include <torch/types.h>

#include "interop/imported_model.h"

namespace nmt::interop {

// Whether dir is a Marian model folder: a decoder.yml, or a model.npz.
bool is_marian_model_dir(const std::string& dir);

// Reads dir. A DataError (exit 3) names the file and what is wrong.
ImportedModel import_marian_model(const std::string& dir);

// Marian's sinusoidal positions as CTranslate2's conversion stores them:
// rows [rows, d], row p (from 0) sin(p / 10000^(2i/d)) for i < d/2, then
// the cosines.
torch::Tensor marian_sinusoids(int64_t rows, int64_t d);

// A Marian vocabulary file's tokens in id order: YAML (token: id) or JSON
// ({"token": id}); ids must run 0..n-1 without a gap or a repeat.
std::vector<std::string> read_marian_vocabulary(const std::string& path);
// The same from a file's bytes; `path` names it in messages.
std::vector<std::string> parse_marian_vocabulary(const std::string& bytes, const std::string& path);

}  // namespace nmt::interop
