// Reading torch.save archives (a zip of one pickle plus a record per tensor
// storage) from bytes that may come from anywhere.
//
// LibTorch's own torch::pickle_load trusts the file. Found by
// tests/fuzz/state_dict_fuzz.cpp under AddressSanitizer: its in-memory zip
// reader reads past the end of a damaged archive; its unpickler sizes its
// memo table by whatever index a LONG_BINPUT claims (9 GB asked for by a
// 20 KB file); and a storage gets the byte size the pickle claims, not the
// size of the record read for it, so a tensor can reach past its data. Here
// the zip reader gets only the bytes that exist, the pickle's opcodes are
// checked before it runs, and every storage is checked against its record.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include <ATen/core/ivalue.h>

namespace nmt::storage {

struct TorchArchive {
  c10::IValue value;
  // Bytes actually read from the file for each storage, by its data pointer.
  std::unordered_map<const void*, size_t> record_bytes;
};

// Unpickles a torch.save archive. Anything malformed, truncated or claiming
// more than the archive holds is a DataError naming origin.
TorchArchive read_torch_archive(const std::string& bytes, const std::string& origin);

// Throws a DataError naming origin unless every argument of the pickle's
// opcodes lies inside it, every memo index is below its size, and it ends
// with STOP. Exposed for tests.
void check_pickle_opcodes(const std::string& pickle, const std::string& origin);

}  // namespace nmt::storage
