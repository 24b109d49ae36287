// Files written whole or not at all: a temporary file beside the target,
// flushed to disk, then renamed over it (rename is atomic within a directory).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {

// Throws nmt::Error (exit 1) naming the path when writing fails; the target is
// then untouched and no temporary file is left behind.
void write_file_atomically(const std::string& path, const std::string& bytes);
// The same for a file made of `parts` in order, none of them copied.
void write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts);

// Whole file as bytes; throws DataError naming the path when unreadable.
std::string read_file_bytes(const std::string& path);

}  // namespace nmt
