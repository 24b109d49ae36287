#include "model/state_dict.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::model {
namespace {

std::string shape_text(const torch::Tensor& t) {
  std::ostringstream ss;
  ss << t.sizes();
  return ss.str();
}

// LibTorch's in-memory readers (torch::pickle_load's, MemoryReadAdapter)
// copy whatever range the zip reader asks for, and a damaged archive makes it
// ask past the end (AddressSanitizer: a heap-buffer-overflow read in
// mz_zip_reader_init, found by tests/fuzz/state_dict_fuzz.cpp). This one
// hands over only the bytes that exist; the zip reader takes a short read as
// the error it is.
class BoundedReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BoundedReader(const std::string& bytes) : bytes_(bytes) {}
  size_t size() const override { return bytes_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= bytes_.size()) return 0;
    n = std::min<uint64_t>(n, bytes_.size() - pos);
    std::memcpy(buf, bytes_.data() + pos, n);
    return n;
  }

 private:
  const std::string& bytes_;
};

// What torch::pickle_load does, through the bounded reader.
c10::IValue unpickle_zip_archive(const std::string& bytes) {
  caffe2::serialize::PyTorchStreamReader reader(std::make_shared<BoundedReader>(bytes));
  return torch::jit::readArchiveAndTensors("data", /*pickle_prefix=*/"", /*tensor_prefix=*/"",
                                           /*type_resolver=*/c10::nullopt, /*obj_loader=*/c10::nullopt,
                                           /*device=*/c10::nullopt, reader);
}

// A file from elsewhere may hold anything a pickle can describe. Tensors are
// dense, on the CPU, with all their elements in the storage read from the
// file: a view with zero strides (an expanded [2^40] tensor of one element)
// would otherwise become terabytes at the first copy or cast.
void check_dense_tensor(const std::string& name, const torch::Tensor& t, const std::string& origin) {
  const std::string key = "Tensors in " + origin + ": key '" + name + "'";
  if (t.layout() != torch::kStrided || t.is_quantized() || !t.device().is_cpu()) {
    throw DataError(key + " is not a plain dense tensor.");
  }
  const bool in_storage = t.numel() == 0 ||
                          (t.is_non_overlapping_and_dense() &&
                           (t.storage_offset() + t.numel()) * static_cast<int64_t>(t.element_size()) <=
                               static_cast<int64_t>(t.storage().nbytes()));
  if (!in_storage) {
    throw DataError(key + " has shape " + shape_text(t) + " but its data does not back that shape (" +
                    std::to_string(t.storage().nbytes()) + " bytes stored).");
  }
}

}  // namespace

StateDict state_dict_of(const TransformerImpl& model) {
  StateDict out;
  for (const auto& item : model.named_parameters(/*recurse=*/true)) out[item.key()] = item.value().detach();
  const auto& projection = model.decoder->linear;
  if (projection->tied()) out["decoder.linear.weight"] = projection->weight().detach();
  return out;
}

void load_state_dict(TransformerImpl& model, const StateDict& dict, const std::string& origin) {
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
  c10::IValue value;
  try {
    value = unpickle_zip_archive(bytes);
  } catch (const std::exception& e) {
    throw DataError("Cannot read weights from " + origin + ": the file is truncated or not a torch.save file.");
  }
  if (!value.isGenericDict()) {
    throw DataError("Weights in " + origin + " are not a state_dict (expected a dict of name -> tensor).");
  }
  StateDict out;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) {
      throw DataError("Weights in " + origin + " hold an entry that is not name -> tensor.");
    }
    check_dense_tensor(entry.key().toStringRef(), entry.value().toTensor(), origin);
    out[entry.key().toStringRef()] = entry.value().toTensor();
  }
  return out;
}

std::string state_dict_to_bytes(const StateDict& dict) {
  c10::Dict<std::string, torch::Tensor> d;
  for (const auto& [name, tensor] : dict) d.insert(name, tensor.detach().cpu().contiguous());
  std::vector<char> data = torch::pickle_save(c10::IValue(d));
  return std::string(data.begin(), data.end());
}

StateDict read_state_dict_file(const std::string& path) {
  return state_dict_from_bytes(read_file_bytes(path), path);
}

void write_state_dict_file(const std::string& path, const StateDict& dict) {
  write_file_atomically(path, state_dict_to_bytes(dict));
}

}  // namespace nmt::model
