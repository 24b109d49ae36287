// CTranslate2's model.bin, binary versions 1 to 6: a header (version; from
// version 2 the spec's name and revision), named variables (shape, type,
// bytes), and from version 3 aliases (a name that refers to another
// variable, as a tied projection refers to its embedding).
//
//   u32 version | v>=2: str spec, u32 revision | u32 count |
//   count x { str name, u8 rank, u32 dims[rank],
//             v>=4: u8 type, u32 bytes | v<4: u8 item size, u32 items, data }
//   v>=3: u32 aliases, aliases x { str alias, str name }
//   str: u16 length including a final NUL, then the bytes.
// Version 1 files (OpenNMT-tf's names) are renamed as CTranslate2 renames
// them, so that every version reads under today's names.
// Types (v>=4): 0 float32, 1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16;
// before version 4 the item size alone says 4 float32, 2 int16, 1 int8.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <torch/types.h>

namespace nmt::interop {

struct Ct2ModelFile {
  std::string path;
  std::string engine = "CTranslate2";  // whose model it is, for messages (a Marian model renamed into one)
  uint32_t version = 0;
  std::string spec;       // empty before version 2
  uint32_t revision = 1;  // 1 before version 2
  std::map<std::string, torch::Tensor> variables;  // as stored: float32, int8, int16, int32, float16, bfloat16
  std::map<std::string, std::string> aliases;      // alias -> variable

  bool has(const std::string& name) const;
  // The variable (through an alias) as stored; a DataError naming the file
  // when it is absent.
  const torch::Tensor& raw(const std::string& name) const;
  // The variable as float32: int8 and int16 weights divided by their
  // `NAME_scale` (int8: one scale a row; int16: one scale, and version 1
  // files, which store none, CTranslate2's fixed 1000), float16 and
  // bfloat16 widened.
  torch::Tensor float32(const std::string& name) const;
  // A scalar attribute (num_heads, pre_norm, activation, ...) as a number;
  // `fallback` when absent.
  double scalar(const std::string& name, double fallback) const;
  // A text attribute (stored as int8 bytes: unk_token, ...); `fallback`
  // when absent.
  std::string text(const std::string& name, const std::string& fallback) const;
};

// Reads path (a model.bin) whole. A truncated or corrupt file, an unknown
// version or type, or a variable whose byte count disagrees with its shape
// is a DataError naming the file and the byte offset.
Ct2ModelFile read_ct2_model_file(const std::string& path);
// The same from the file's bytes; `path` names it in messages.
Ct2ModelFile parse_ct2_model_file(const std::string& bytes, const std::string& path);

// The bytes of `file` in binary version 6 (its spec and revision, its
// variables in name order, its aliases), as CTranslate2's own writer lays
// them out. A DataError names a variable that version 6 cannot hold (a
// type without an id, a dimension or byte count over 32 bits, a name over
// 64 KiB).
std::string ct2_model_file_bytes(const Ct2ModelFile& file);

}  // namespace nmt::interop
