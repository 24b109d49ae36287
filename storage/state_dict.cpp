#include "storage/state_dict.h"

#include <sstream>

#include <torch/serialize.h>
#include <torch/torch.h>

#include "storage/torch_archive.h"

#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

std::string shape_text(const torch::Tensor& t) {
  std::ostringstream ss;
  ss << t.sizes();
  return ss.str();
}

// A file from elsewhere may hold anything a pickle can describe. Tensors are
// dense, on the CPU, with all their elements in the bytes read from the file
// for their storage: a view with zero strides (an expanded [2^40] tensor of
// one element) would otherwise become terabytes at the first copy or cast,
// and a storage claiming more than its record would be read past its end.
void check_dense_tensor(const std::string& name, const torch::Tensor& t, const TorchArchive& archive,
                        const std::string& origin) {
  const std::string key = "Tensors in " + origin + ": key '" + name + "'";
  if (t.layout() != torch::kStrided || t.is_quantized() || !t.device().is_cpu()) {
    throw DataError(key + " is not a plain dense tensor.");
  }
  if (t.numel() == 0) return;
  const auto record = archive.record_bytes.find(t.storage().data());
  const int64_t stored = record == archive.record_bytes.end() ? 0 : static_cast<int64_t>(record->second);
  const bool backed = t.is_non_overlapping_and_dense() &&
                      static_cast<int64_t>(t.storage().nbytes()) <= stored &&
                      (t.storage_offset() + t.numel()) * static_cast<int64_t>(t.element_size()) <= stored;
  if (!backed) {
    throw DataError(key + " has shape " + shape_text(t) + " but its data does not back that shape (" +
                    std::to_string(stored) + " bytes stored).");
  }
}

}  // namespace

StateDict state_dict_of(const model::TransformerImpl& model) {
  StateDict out;
  for (const auto& item : model.named_parameters(/*recurse=*/true)) out[item.key()] = item.value().detach();
  const auto& projection = model.decoder->linear;
  if (projection->tied()) out["decoder.linear.weight"] = projection->weight().detach();
  return out;
}

void load_state_dict(model::TransformerImpl& model, const StateDict& dict, const std::string& origin) {
  StateDict expected = state_dict_of(model);
  for (const auto& [name, tensor] : expected) {
    auto it = dict.find(name);
    if (it == dict.end()) {
      throw DataError("Weights in " + origin + " lack the key '" + name + "' that this model configuration needs.");
    }
    if (!it->second.is_floating_point()) {
      throw DataError("Weights in " + origin + ": key '" + name + "' holds " +
                      std::string(c10::toString(it->second.scalar_type())) + " values; weights are floating point.");
    }
    if (!it->second.sizes().equals(tensor.sizes())) {
      throw DataError("Weights in " + origin + ": key '" + name + "' has shape " + shape_text(it->second) +
                      " but this model configuration expects " + shape_text(tensor) + ".");
    }
  }
  for (const auto& [name, tensor] : dict) {
    if (!expected.count(name)) {
      throw DataError("Weights in " + origin + " have the unexpected key '" + name +
                      "' (not part of this model configuration).");
    }
  }
  torch::NoGradGuard no_grad;
  for (auto& [name, target] : expected) {
    target.copy_(dict.at(name).to(target.device(), target.scalar_type()));
  }
}

StateDict state_dict_from_bytes(const std::string& bytes, const std::string& origin) {
  const TorchArchive archive = read_torch_archive(bytes, origin);
  const c10::IValue& value = archive.value;
  if (!value.isGenericDict()) {
    throw DataError("Weights in " + origin + " are not a state_dict (expected a dict of name -> tensor).");
  }
  StateDict out;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) {
      throw DataError("Weights in " + origin + " hold an entry that is not name -> tensor.");
    }
    check_dense_tensor(entry.key().toStringRef(), entry.value().toTensor(), archive, origin);
    out[entry.key().toStringRef()] = entry.value().toTensor();
  }
  return out;
}

// The pickled archive exists twice for a moment (LibTorch's vector, our
// string): a checkpoint's Adam moments are the largest thing it writes, so
// no third copy is made for a prefix.
std::string state_dict_to_bytes(const StateDict& dict, std::string_view prefix) {
  c10::Dict<std::string, torch::Tensor> d;
  for (const auto& [name, tensor] : dict) d.insert(name, tensor.detach().cpu().contiguous());
  std::vector<char> data = torch::pickle_save(c10::IValue(d));
  std::string bytes;
  bytes.reserve(prefix.size() + data.size());
  bytes.append(prefix);
  bytes.append(data.data(), data.size());
  return bytes;
}

StateDict read_state_dict_file(const std::string& path) {
  return state_dict_from_bytes(read_file_bytes(path), path);
}

void write_state_dict_file(const std::string& path, const StateDict& dict) {
  write_file_atomically(path, state_dict_to_bytes(dict));
}

}  // namespace nmt::storage
