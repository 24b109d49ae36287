#include "storage/optimizer_bytes.h"

#include <sstream>

#include <torch/torch.h>

#include "util/error.h"

namespace nmt::storage {

std::string optimizer_bytes(torch::optim::Adam& optimizer) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void load_optimizer_bytes(torch::optim::Adam& optimizer, const std::string& bytes, const std::string& origin) {
  try {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    optimizer.load(archive);
  } catch (const c10::Error&) {
    throw DataError("Checkpoint " + origin + " holds optimizer state that does not fit this model.");
  }
}

}  // namespace nmt::storage
