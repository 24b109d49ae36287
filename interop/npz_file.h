// NumPy's .npz (a zip archive of .npy arrays), as Marian saves its models:
// every parameter an array, plus the model's YAML options as an int8 array
// named "special:model.yml".
//
//   .npy: "\x93NUMPY", u8 major, u8 minor, header length (u16 for 1.x, u32
//   for 2.x and 3.x), an ASCII Python dict {'descr': '<f4', 'fortran_order':
//   False, 'shape': (512, 512), } padded with spaces, then the data.
// Types read: float32, float16, int8, uint8, int32 (little-endian); what
// else NumPy may write (Fortran order, big-endian, objects) is refused.
#pragma once

#include <map>
#include <string>

#include <torch/types.h>

namespace nmt::interop {

struct NpzFile {
  std::string path;
  std::map<std::string, torch::Tensor> arrays;  // by name, without ".npy"

  bool has(const std::string& name) const { return arrays.count(name) != 0; }
  // The array; a DataError naming the file when it is absent.
  const torch::Tensor& at(const std::string& name) const;
};

// Reads path whole. A file that is not a zip archive, an entry that is not
// an .npy array, a header that does not parse, a type not read here, or
// data whose size disagrees with the shape is a DataError naming the file
// and the entry.
NpzFile read_npz(const std::string& path);
// The same from the file's bytes; `path` names it in messages.
NpzFile parse_npz(std::string bytes, const std::string& path);
// One .npy array from its bytes; `what` names it in messages.
torch::Tensor parse_npy(const std::string& bytes, const std::string& what);

// The .npy bytes of a CPU tensor of a type read here (format 1.0, C order).
std::string npy_bytes(const torch::Tensor& t);
// The .npz bytes of `arrays` (NAME.npy each, uncompressed as numpy.savez
// and Marian write them), in name order.
std::string npz_bytes(const std::map<std::string, torch::Tensor>& arrays);

}  // namespace nmt::interop
