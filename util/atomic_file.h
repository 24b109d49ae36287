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

// Temporary files of long writes beside their target (id caches, cached
// vocabularies): the suffix ".tmp-HOST-PID" names this machine and process,
// so that a shared directory tells a dead build's leftovers from a live one's.
std::string temporary_suffix();
// Whether `name` (a file name in the target's directory) is a temporary of
// `target` left by a process of this machine that no longer runs.
bool stale_temporary(const std::string& name, const std::string& target);

// Whole file as bytes; throws DataError naming the path when unreadable.
std::string read_file_bytes(const std::string& path);

}  // namespace nmt
