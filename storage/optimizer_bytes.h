// The optimizer's state as bytes: what checkpoints store, and what rank 0 of
// a data-parallel job hands the other ranks when it resumes.
//
// Written as "NMTADAM" 0x01 and then a state_dict (storage/state_dict.h) of
// each parameter group's options and each parameter's step and moments,
// named by their place ("group0.param12.exp_avg"). LibTorch's own archive
// keys Adam's state by each parameter's address in memory, so two runs of
// the same training wrote different bytes; these are the same. Checkpoints
// of format version 1 hold LibTorch's archive, which still loads.
#pragma once

#include <string>

#include <torch/optim/adam.h>

namespace nmt::storage {

std::string optimizer_bytes(const torch::optim::Adam& optimizer);

// Replaces the optimizer's options and state with those in `bytes`, or
// leaves it untouched and throws a DataError naming `origin` when they do not
// fit its parameters (other counts or shapes) or cannot be read.
void load_optimizer_bytes(torch::optim::Adam& optimizer, const std::string& bytes, const std::string& origin);

}  // namespace nmt::storage
