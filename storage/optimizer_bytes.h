// The optimizer's state as bytes: what checkpoints store, and what rank 0 of
// a data-parallel job hands the other ranks when it resumes.
#pragma once

#include <string>

#include <torch/optim/adam.h>

namespace nmt::storage {

std::string optimizer_bytes(torch::optim::Adam& optimizer);

// DataError naming `origin` when the state does not fit the optimizer's parameters.
void load_optimizer_bytes(torch::optim::Adam& optimizer, const std::string& bytes, const std::string& origin);

}  // namespace nmt::storage
