// Weights in the reference's state_dict format: a dict name -> tensor as
// Python's torch.save writes it, read with torch::pickle_load and written with
// torch::pickle_save so that torch.load + Transformer.load_state_dict take it.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <torch/types.h>

#include "model/transformer.h"

namespace nmt::storage {

using StateDict = std::map<std::string, torch::Tensor>;

// Our parameters under the reference's names (a tied output weight is written
// as decoder.linear.weight too, a shared table under both embedding names).
StateDict state_dict_of(const model::TransformerImpl& model);

// Copies `dict` into the model by name. Any missing, unexpected, mis-shaped
// or not floating-point key is a DataError naming the key and `origin`; the
// model is unchanged then.
void load_state_dict(model::TransformerImpl& model, const StateDict& dict, const std::string& origin);

// File I/O. Reading a truncated or foreign file is a DataError naming it.
StateDict read_state_dict_file(const std::string& path);
void write_state_dict_file(const std::string& path, const StateDict& dict);

// In-memory forms of the same format (used inside checkpoints). Reading
// takes any dict of name -> dense CPU tensor; a file that is not one, or
// whose tensors claim more elements than it stores, is a DataError naming
// origin.
StateDict state_dict_from_bytes(const std::string& bytes, const std::string& origin);
// `prefix` goes before the bytes (a format's magic) without a copy of them.
std::string state_dict_to_bytes(const StateDict& dict, std::string_view prefix = {});

}  // namespace nmt::storage
